import * as E from 'fp-ts/Either';
import type * as TE from 'fp-ts/TaskEither';
import { fromPromise } from 'xstate';
import type { ApiError } from './http';

/**
 * Turns an API call into a promise actor: leaving the invoking state aborts the request through
 * `signal`, a Right becomes the actor's output, and a Left rejects with the `ApiError` itself so
 * that machines read `event.error.message`.
 */
export function fromTaskEither<TOutput, TInput>(
  call: (input: TInput, signal: AbortSignal) => TE.TaskEither<ApiError, TOutput>,
) {
  return fromPromise<TOutput, TInput>(async ({ input, signal }) => {
    const result = await call(input, signal)();
    if (E.isLeft(result)) throw result.left;
    return result.right;
  });
}
