import type * as TE from 'fp-ts/TaskEither';
import { fromTaskEither } from '../api/actor';
import type { ApiError } from '../api/http';
import { autosaveFormMachine } from '../machines/autosaveFormMachine';

/** A form that saves itself with `save`. */
export const autosaveLogic = <I, O>(
  save: (input: I, signal: AbortSignal) => TE.TaskEither<ApiError, O>,
) => autosaveFormMachine.provide({ actors: { save: fromTaskEither(save) } });
