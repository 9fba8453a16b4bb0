// The common Search query of the reference (term, skip, take, sort, repeated filter keys), which
// every list route extends with its own keys. Fastify's validator turns a single `filter` value
// into an array.

/**
 * The reference binds skip and take to 32-bit integers, so a larger number is a 400 there as
 * here; unbounded, it reached the database as an offset no engine accepts (a 500). A take over
 * the service's maximum is its own 400 MaximumTakeExceeded (server/core/fields.ts).
 */
export const INT32_MAX = 2_147_483_647;

export const searchProperties = {
  term: { type: 'string' },
  skip: { type: 'integer', minimum: 0, maximum: INT32_MAX },
  take: { type: 'integer', minimum: 0, maximum: INT32_MAX },
  sort: { type: 'string' },
  filter: { type: 'array', items: { type: 'string' } },
} as const;
