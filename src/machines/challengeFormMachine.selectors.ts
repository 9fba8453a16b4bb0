import type { ChallengeDraft } from '../domain/challengeForm';
import type {
  AutosaveFormActorRef,
  AutosaveFormSnapshot,
  FormMessages,
} from './autosaveFormMachine';
import {
  selectAutosaveStatus,
  selectCanRetrySave,
  selectFormIsValid,
  selectFormValues,
} from './autosaveFormMachine.selectors';
import { isWithin } from '../domain/challengeForm';
import type {
  ChallengeFormActorRef,
  ChallengeFormSnapshot,
  FreshItems,
} from './challengeFormMachine';
import type { WorkspaceEditorSnapshot } from './workspaceEditorMachine';

// The draft, its messages and the save status are the form's (the challenge form's child, once
// the spec has loaded); the selectors below that take an AutosaveFormSnapshot read that child.

/** Whether the spec is there to edit. */
export type ChallengeLoadStatus = 'loading' | 'loadFailed' | 'ready';

export const selectChallengeLoadStatus = (snapshot: ChallengeFormSnapshot): ChallengeLoadStatus =>
  snapshot.matches('loading') ? 'loading' : snapshot.matches('loadFailed') ? 'loadFailed' : 'ready';

/** Why the spec could not be loaded. */
export const selectChallengeLoadError = (snapshot: ChallengeFormSnapshot): string | null =>
  snapshot.context.error;

/** The draft's autosaving form, running once the spec has loaded. */
export const selectChallengeDraftForm = (
  snapshot: ChallengeFormSnapshot,
): AutosaveFormActorRef | undefined => snapshot.children.form;

/** The item whose removal is being confirmed. */
export const selectConfirmingRemoval = (snapshot: ChallengeFormSnapshot): string | null =>
  snapshot.context.confirming;

/** New items and their touched fields; the context's own object, stable until they change. */
export const selectFreshItems = (snapshot: ChallengeFormSnapshot): FreshItems =>
  snapshot.context.fresh;

/** Whether the message of the field at `path` shows: not in a new item, or touched there. */
export const showsMessage = (fresh: FreshItems, path: string): boolean =>
  fresh.touched.includes(path) || !fresh.items.some((item) => isWithin(path, item));

export const selectShowsMessage =
  (path: string) =>
  (snapshot: ChallengeFormSnapshot): boolean =>
    showsMessage(snapshot.context.fresh, path);

/** How many of the messages show, and how many wait for their new item's fields to be touched. */
export function countMessages(
  messages: FormMessages,
  fresh: FreshItems,
): { shown: number; waiting: number } {
  const paths = Object.keys(messages);
  const shown = paths.filter((path) => showsMessage(fresh, path)).length;
  return { shown, waiting: paths.length - shown };
}

/**
 * Where the form is, as its indicator shows it: `unsaved` waits for the autosave delay, `invalid`
 * waits for the errors beside the fields to be fixed.
 */
export type ChallengeSaveStatus = 'clean' | 'unsaved' | 'invalid' | 'saving' | 'saved' | 'failed';

export const selectChallengeSaveStatus = (form: AutosaveFormSnapshot): ChallengeSaveStatus => {
  const status = selectAutosaveStatus(form);
  if (status === 'pristine') return 'clean';
  if (status === 'editing') return selectFormIsValid(form) ? 'unsaved' : 'invalid';
  return status;
};

/** The draft; its parts keep their identity until they change. */
export const selectChallengeDraft = (form: AutosaveFormSnapshot): ChallengeDraft =>
  selectFormValues<ChallengeDraft>(form);

/** By the field's path; the context's own object, a stable reference until the draft changes. */
export const selectChallengeMessages = (form: AutosaveFormSnapshot): FormMessages =>
  form.context.messages;

/** Why the last save failed, until the next one starts. */
export const selectChallengeError = (form: AutosaveFormSnapshot): string | null =>
  form.context.error;

export const selectCanRetry = (form: AutosaveFormSnapshot): boolean => selectCanRetrySave(form);

/** The workspace editor's challenge form, running once the workspace has loaded. */
export const selectChallengeFormActor = (
  snapshot: WorkspaceEditorSnapshot,
): ChallengeFormActorRef | undefined =>
  snapshot.children.challenge as ChallengeFormActorRef | undefined;
