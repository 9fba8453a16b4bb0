// Domain errors carry the reference system's message names; the HTTP layer answers them as
// 400 {"message": name} (wire reference §0). Authorization failures are a separate kind: 403 with
// an empty body. Anything else is a 500 {"message":"Error"} with details only in the log.

import type { DomainErrorName, ErrorFacts } from '../../src/domain/errors';

// What the database's refusals mean, for the rest of core, which does not import the store's
// connection: a value it refused (a NUL in text, a number out of range) is the caller's error,
// which the HTTP layer answers 400 as it answers a field that fails validation; a unique
// violation is a row that is there already.
export { isInvalidValue, isUniqueViolation } from '../store/db';

// The names and what the SPA says for each are in src/domain/errors.ts, the error catalogue.
export type { DomainErrorName };

export class DomainError extends Error {
  constructor(
    override readonly name: DomainErrorName,
    /** Extra text appended to the name, as the reference does for argument errors. */
    readonly detail?: string,
    /** Facts of our own written beside the message (TopoMojo clients ignore them). */
    readonly facts: ErrorFacts = {},
  ) {
    super(detail ? `${name} ${detail}` : name);
  }
}

/** The actor may not do this: answered 403 with an empty body. */
export class Forbidden extends Error {
  constructor() {
    super('Forbidden');
  }
}

/** An argument failed validation (a missing id, a too-long name): 400 problem details. */
export class ValidationFailed extends Error {
  constructor(
    readonly argument: string,
    readonly reason: string,
  ) {
    super(`${argument}: ${reason}`);
  }
}

export const notFound = () => new DomainError('ResourceNotFound');
export const forbidden = () => new Forbidden();
