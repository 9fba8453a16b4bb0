import type { ChallengeDraft, ChallengeMessages } from '../domain/challengeForm';
import type { ChallengeFormActorRef, ChallengeFormSnapshot } from './challengeFormMachine';
import type { WorkspaceEditorSnapshot } from './workspaceEditorMachine';

/**
 * Where the form is, as its indicator shows it: `unsaved` waits for the autosave delay, `invalid`
 * waits for the errors beside the fields to be fixed.
 */
export type ChallengeSaveStatus =
  'loading' | 'loadFailed' | 'clean' | 'unsaved' | 'invalid' | 'saving' | 'saved' | 'failed';

export const selectChallengeStatus = (snapshot: ChallengeFormSnapshot): ChallengeSaveStatus => {
  if (snapshot.matches('loading')) return 'loading';
  if (snapshot.matches('loadFailed')) return 'loadFailed';
  if (snapshot.matches({ ready: 'saving' })) return 'saving';
  if (snapshot.matches({ ready: 'saved' })) return 'saved';
  if (snapshot.matches({ ready: 'failed' })) return 'failed';
  if (snapshot.matches({ ready: 'dirty' })) {
    return Object.keys(snapshot.context.messages).length === 0 ? 'unsaved' : 'invalid';
  }
  return 'clean';
};

/** The draft (null until loaded); its parts keep their identity until they change. */
export const selectChallengeDraft = (snapshot: ChallengeFormSnapshot): ChallengeDraft | null =>
  snapshot.context.draft;

export const selectChallengeMessages = (snapshot: ChallengeFormSnapshot): ChallengeMessages =>
  snapshot.context.messages;

export const selectChallengeError = (snapshot: ChallengeFormSnapshot): string | null =>
  snapshot.context.error;

/** The item whose removal is being confirmed. */
export const selectConfirmingRemoval = (snapshot: ChallengeFormSnapshot): string | null =>
  snapshot.context.confirming;

export const selectCanRetry = (snapshot: ChallengeFormSnapshot): boolean =>
  snapshot.can({ type: 'challenge.retryRequested' });

/** The workspace editor's challenge form, running once the workspace has loaded. */
export const selectChallengeFormActor = (
  snapshot: WorkspaceEditorSnapshot,
): ChallengeFormActorRef | undefined =>
  snapshot.children.challenge as ChallengeFormActorRef | undefined;
