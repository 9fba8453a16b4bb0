// JSON schemas shared by the route modules.

/** `{id}` in a route's path: a workspace, gamespace or document id. */
export const idParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', maxLength: 64 } },
} as const;
