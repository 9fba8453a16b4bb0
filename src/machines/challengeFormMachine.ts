import { assign, fromPromise, setup, type ActorRefFrom, type SnapshotFrom } from 'xstate';
import { normalizeChallengeSpec, type ChallengeSpec } from '../domain/challenge';
import {
  addItem,
  draftOf,
  editDraft,
  removeItem,
  specOf,
  validateDraft,
  type ChallengeDraft,
  type ChallengeMessages,
} from '../domain/challengeForm';
import { errorMessage } from '../domain/text';

/** How long after the last change the form saves itself (and at once when a field is left). */
export const AUTOSAVE_DELAY_MS = 1_000;

export type ChallengeFormEvent =
  /** A field changed; `path` is the draft's dotted path (`variants.0.sections.1.name`). */
  | { type: 'challenge.fieldEdited'; path: string; value: string | boolean }
  /** A field lost focus: a valid change is saved now rather than after the delay. */
  | { type: 'challenge.fieldBlurred' }
  /** Add an empty item to the list at `list` (`transforms`, `variants.0.sections`, ...). */
  | { type: 'challenge.itemAdded'; list: string }
  /** Remove was pressed for the item at `path`: ask first (spec §5). */
  | { type: 'challenge.removeRequested'; path: string }
  | { type: 'challenge.removeConfirmed' }
  | { type: 'challenge.removeCancelled' }
  /** Try the failed load or save again. */
  | { type: 'challenge.retryRequested' };

export interface ChallengeFormInput {
  workspaceId: string;
}

export interface ChallengeFormContext {
  workspaceId: string;
  /** The form's state: the spec being edited (null until it has loaded). */
  draft: ChallengeDraft | null;
  /** Validation of `draft` by field path; empty when it may be saved. */
  messages: ChallengeMessages;
  /** The draft of the save in flight (or of the last one). */
  sending: ChallengeDraft | null;
  /** The item whose removal waits for confirmation. */
  confirming: string | null;
  /** Why the load or the last save failed, camel-case split. */
  error: string | null;
}

const notProvided = (name: string): Error =>
  new Error(`challengeFormMachine: '${name}' is provided by the app (src/app)`);

/** Applies a draft change and validates the result. */
const changed = (draft: ChallengeDraft) => ({ draft, messages: validateDraft(draft) });

/**
 * The Challenge tab (spec §2, §3, §5): loads the workspace's challenge spec, edits it field by
 * field with validation beside each field, and saves it by itself once valid: 1 s after the last
 * change, or at once when a field is left. Edits made during a save are kept and saved next.
 * A failed save keeps the draft and can be retried; removing an item asks for confirmation.
 */
export const challengeFormMachine = setup({
  types: {
    input: {} as ChallengeFormInput,
    context: {} as ChallengeFormContext,
    events: {} as ChallengeFormEvent,
  },
  delays: { autosave: AUTOSAVE_DELAY_MS },
  actors: {
    /** GET challenge/{id}. */
    loadChallenge: fromPromise<ChallengeSpec, { workspaceId: string }>(() => {
      throw notProvided('loadChallenge');
    }),
    /** PUT challenge/{id}. */
    saveChallenge: fromPromise<unknown, { workspaceId: string; spec: ChallengeSpec }>(() => {
      throw notProvided('saveChallenge');
    }),
  },
  actions: {
    edit: assign(({ context, event }) => {
      if (!context.draft) return {};
      if (event.type === 'challenge.fieldEdited' && typeof event.path === 'string') {
        return changed(editDraft(context.draft, event.path, event.value));
      }
      if (event.type === 'challenge.itemAdded' && typeof event.list === 'string') {
        return changed(addItem(context.draft, event.list));
      }
      if (event.type === 'challenge.removeConfirmed' && context.confirming !== null) {
        return { ...changed(removeItem(context.draft, context.confirming)), confirming: null };
      }
      return {};
    }),
    askToRemove: assign({
      confirming: ({ event }) =>
        event.type === 'challenge.removeRequested' && typeof event.path === 'string'
          ? event.path
          : null,
    }),
    cancelRemoval: assign({ confirming: null }),
    startSending: assign({ sending: ({ context }) => context.draft, error: null }),
    showError: assign({ error: ({ event }) => errorMessage((event as { error?: unknown }).error) }),
  },
  guards: {
    isValid: ({ context }) => Object.keys(context.messages).length === 0,
    isConfirming: ({ context }) => context.confirming !== null,
    /** The user changed something while the save was in flight. */
    isChangedSinceSent: ({ context }) => context.draft !== context.sending,
  },
}).createMachine({
  id: 'challengeForm',
  description:
    "The Challenge tab's form: loads the spec, validates each field, autosaves 1 s after the last valid change or on blur, keeps edits made during a save for the next one, retries failures on request, and confirms removals.",
  context: ({ input }) => ({
    workspaceId: input.workspaceId,
    draft: null,
    messages: {},
    sending: null,
    confirming: null,
    error: null,
  }),
  initial: 'loading',
  states: {
    loading: {
      invoke: {
        src: 'loadChallenge',
        input: ({ context }) => ({ workspaceId: context.workspaceId }),
        onDone: {
          target: 'ready',
          actions: assign(({ event }) => {
            // Normalized again: a spec from an older server, or none (a model traversal's event).
            const draft = draftOf(normalizeChallengeSpec(event.output));
            return { ...changed(draft), sending: draft, error: null };
          }),
        },
        onError: { target: 'loadFailed', actions: 'showError' },
      },
    },
    /** The spec could not be loaded: nothing to edit until a retry succeeds. */
    loadFailed: {
      on: { 'challenge.retryRequested': 'loading' },
    },
    ready: {
      on: {
        'challenge.removeRequested': { actions: 'askToRemove' },
        'challenge.removeCancelled': { actions: 'cancelRemoval' },
      },
      initial: 'clean',
      states: {
        /** As loaded: nothing to save. */
        clean: {
          on: {
            'challenge.fieldEdited': { target: 'dirty', actions: 'edit' },
            'challenge.itemAdded': { target: 'dirty', actions: 'edit' },
            'challenge.removeConfirmed': {
              guard: 'isConfirming',
              target: 'dirty',
              actions: 'edit',
            },
          },
        },
        /**
         * Changed and not saved. Every change restarts the delay (debounce); an invalid draft
         * waits here until it is fixed.
         */
        dirty: {
          after: { autosave: { guard: 'isValid', target: 'saving' } },
          on: {
            'challenge.fieldEdited': { target: 'dirty', reenter: true, actions: 'edit' },
            'challenge.itemAdded': { target: 'dirty', reenter: true, actions: 'edit' },
            'challenge.removeConfirmed': {
              guard: 'isConfirming',
              target: 'dirty',
              reenter: true,
              actions: 'edit',
            },
            'challenge.fieldBlurred': { guard: 'isValid', target: 'saving' },
          },
        },
        saving: {
          entry: 'startSending',
          invoke: {
            src: 'saveChallenge',
            input: ({ context }) => ({
              workspaceId: context.workspaceId,
              // `sending` is set on entry, before the save starts.
              spec: specOf(context.sending!),
            }),
            onDone: [{ guard: 'isChangedSinceSent', target: 'dirty' }, { target: 'saved' }],
            onError: { target: 'failed', actions: 'showError' },
          },
          on: {
            'challenge.fieldEdited': { actions: 'edit' },
            'challenge.itemAdded': { actions: 'edit' },
            'challenge.removeConfirmed': { guard: 'isConfirming', actions: 'edit' },
          },
        },
        saved: {
          on: {
            'challenge.fieldEdited': { target: 'dirty', actions: 'edit' },
            'challenge.itemAdded': { target: 'dirty', actions: 'edit' },
            'challenge.removeConfirmed': {
              guard: 'isConfirming',
              target: 'dirty',
              actions: 'edit',
            },
          },
        },
        /** The draft is kept; Retry (or the next change's autosave) tries again. */
        failed: {
          on: {
            'challenge.retryRequested': { guard: 'isValid', target: 'saving' },
            'challenge.fieldEdited': { target: 'dirty', actions: 'edit' },
            'challenge.itemAdded': { target: 'dirty', actions: 'edit' },
            'challenge.removeConfirmed': {
              guard: 'isConfirming',
              target: 'dirty',
              actions: 'edit',
            },
          },
        },
      },
    },
  },
});

export type ChallengeFormActorRef = ActorRefFrom<typeof challengeFormMachine>;
export type ChallengeFormSnapshot = SnapshotFrom<typeof challengeFormMachine>;
