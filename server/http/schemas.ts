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
  properties: {
    message: { type: 'string' },
    gamespaces: {
      type: 'integer',
      description:
        "Topoplay's own, not in the reference (its clients ignore it): with WorkspaceNotIsolated, " +
        'how many gamespaces of the workspace are running.',
    },
    capacity: {
      type: 'string',
      description:
        "Topoplay's own, not in the reference (its clients ignore it): with HypervisorCapacity, " +
        'what is in use on the hypervisor and what did not fit.',
    },
    maxMinutes: {
      type: 'integer',
      description:
        "Topoplay's own, not in the reference (its clients ignore it): with " +
        'GamespaceExtensionTooLong, how many minutes from now the game may run at most.',
    },
  },
} as const;

export const problemSchema = {
  type: 'object',
  // Required so that a domain error's `{message}` never matches it: the serializer writes a 400
  // by the first branch of `badRequestSchema` that matches.
  required: ['title', 'status', 'errors'],
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

/**
 * 400 is either shape: a domain error's message or validation problem details. Problem details
 * come first: they carry a `message` too, and the serializer would keep only that under the
 * message branch.
 */
export const badRequestSchema = {
  description: 'A domain error ({"message": Name}) or validation problem details',
  anyOf: [problemSchema, errorMessageSchema],
} as const;

/**
 * 401 and 403 answer an empty body (sent as a string, which Fastify never runs through a
 * response serializer). No type: a `null` type would make the serializer write "null".
 */
export const emptySchema = { description: 'Empty body' } as const;

/** `{code}` in a route's path: a workspace or gamespace invitation code. */
export const codeParams = {
  type: 'object',
  required: ['code'],
  properties: { code: { type: 'string', maxLength: 64 } },
} as const;

/** JoinCode (wire reference §2.1): a workspace's or gamespace's invitation. */
export const joinCodeSchema = {
  type: 'object',
  properties: { id: { type: 'string' }, code: { type: 'string' } },
} as const;

/** A list of ids (favorites) or names. */
export const stringListSchema = { type: 'array', items: { type: 'string' } } as const;

/** 404 with an empty body: a favorite or file that does not exist (wire reference §1.1, §1.2). */
export const notFoundResponse = { 404: emptySchema } as const;

/** 429 `{"message":"TooManyRequests"}` with Retry-After (server/http/rateLimit.ts). */
const tooManyRequestsSchema = {
  ...errorMessageSchema,
  description: 'Too many requests from this address: TooManyRequests, with Retry-After',
} as const;

/** The error statuses an anonymous route answers, to spread into its `response`. */
export const anonymousErrorResponses = {
  400: badRequestSchema,
  429: tooManyRequestsSchema,
} as const;

/**
 * The error statuses an authenticated route answers, to spread into its `response`: 429 too,
 * since a request carrying an API key or ticket is refused once its address has guessed too many.
 */
export const errorResponses = {
  ...anonymousErrorResponses,
  401: emptySchema,
  403: emptySchema,
} as const;

/**
 * What a route that reads a body adds: 413 PayloadTooLarge past its limit, and for a JSON body
 * 415 UnsupportedMediaType for a form or text sent to it (server/http/security.ts).
 */
export const bodyErrorResponses = {
  413: { ...errorMessageSchema, description: 'The body is over the route limit: PayloadTooLarge' },
  415: { ...errorMessageSchema, description: 'Not a type the route reads: UnsupportedMediaType' },
} as const;

/** A change the reference answers 200 with an empty body, and its errors. */
export const doneResponses = { 200: emptySchema, ...errorResponses } as const;

/** VmOptions (wire reference: the isos and nets routes): the ISO files and networks to choose from. */
/** A machine's NICs in order and each one's network ('' when disconnected); ours. */
export const vmNicsSchema = {
  type: 'array',
  items: {
    type: 'object',
    properties: { index: { type: 'integer' }, network: { type: 'string' } },
  },
} as const;

/** Ours: the changes of PUT /api/vm/{id}/change the machine's hypervisor makes while it runs. */
export const vmCapabilitiesSchema = {
  type: 'object',
  properties: {
    isoChange: { type: 'boolean' },
    netChange: { type: 'boolean' },
    guestChange: { type: 'boolean' },
  },
} as const;

export const vmOptionsSchema = {
  type: 'object',
  properties: {
    iso: { type: ['array', 'null'], items: { type: 'string' } },
    net: { type: ['array', 'null'], items: { type: 'string' } },
    nics: {
      ...vmNicsSchema,
      description:
        "Topoplay's own, not in the reference (its clients ignore it): with GET " +
        "/api/vm/{id}/nets, the machine's NICs in order and each one's network now.",
    },
    capabilities: {
      ...vmCapabilitiesSchema,
      description:
        "Topoplay's own, not in the reference (its clients ignore it): with GET " +
        '/api/vm/{id}/nets, the changes (`iso`, `net`, `guest`) the hypervisor makes while ' +
        'the machine runs.',
    },
  },
} as const;
