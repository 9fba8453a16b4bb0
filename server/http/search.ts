// The common Search query of the reference (term, skip, take, sort, repeated filter keys), which
// every list route extends with its own keys. Fastify's validator turns a single `filter` value
// into an array.
export const searchProperties = {
  term: { type: 'string' },
  skip: { type: 'integer', minimum: 0 },
  take: { type: 'integer', minimum: 0 },
  sort: { type: 'string' },
  filter: { type: 'array', items: { type: 'string' } },
} as const;
