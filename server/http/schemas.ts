// JSON schemas shared by the route modules.

/** `{id}` in a route's path: a workspace, gamespace or document id. */
export const idParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', maxLength: 64 } },
} as const;

/**
 * The error answers every route may give (wire reference §0), for response schemas and the
 * OpenAPI document: a domain error `400 {"message": Name}`; argument validation `400` problem
 * details (application/problem+json); 401 and 403 with an empty body; 413/415/429 with a message.
 */
export const errorMessageSchema = {
  type: 'object',
  required: ['message'],
  properties: { message: { type: 'string' } },
} as const;

export const problemSchema = {
  type: 'object',
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    errors: {
      type: 'object',
      additionalProperties: { type: 'array', items: { type: 'string' } },
    },
    traceId: { type: 'string' },
    message: { type: 'string' },
  },
} as const;

/** 400 is either shape: a domain error's message or validation problem details. */
export const badRequestSchema = {
  description: 'A domain error ({"message": Name}) or validation problem details',
  anyOf: [errorMessageSchema, problemSchema],
} as const;

/**
 * 401 and 403 answer an empty body (sent as a string, which Fastify never runs through a
 * response serializer). No type: a `null` type would make the serializer write "null".
 */
export const emptySchema = { description: 'Empty body' } as const;

/** The error statuses an authenticated route answers, to spread into its `response`. */
export const errorResponses = {
  400: badRequestSchema,
  401: emptySchema,
  403: emptySchema,
} as const;
