import {
  assertEvent,
  assign,
  fromPromise,
  sendTo,
  setup,
  type ActorRefFrom,
  type SnapshotFrom,
} from 'xstate';
import { normalizeChallengeSpec, type ChallengeSpec } from '../domain/challenge';
import {
  addItem,
  draftOf,
  editDraft,
  isWithin,
  pathAfterRemoval,
  removeItem,
  specOf,
  validateDraft,
  valueAt,
  type ChallengeDraft,
} from '../domain/challengeForm';
import { errorMessage } from '../domain/text';
import { autosaveFormMachine, type AutosaveFormRules } from './autosaveFormMachine';

/** How long after the last change the form saves itself (and at once when a field is left). */
export const AUTOSAVE_DELAY_MS = 1_000;

export type ChallengeFormEvent =
  /** A field changed; `path` is the draft's dotted path (`variants.0.sections.1.name`). */
  | { type: 'challenge.fieldEdited'; path: string; value: string | boolean }
  /** A field (at `path`, when known) lost focus: a valid change is saved now, not after the delay. */
  | { type: 'challenge.fieldBlurred'; path?: string }
  /**
   * The author asked to save now (the status offers it while the draft is invalid): a save
   * attempted shows every field's message, new items' included; a valid draft saves at once.
   */
  | { type: 'challenge.saveRequested' }
  /** Add an empty item to the list at `list` (`transforms`, `variants.0.sections`, ...). */
  | { type: 'challenge.itemAdded'; list: string }
  /** Remove was pressed for the item at `path`: ask first (spec §5). */
  | { type: 'challenge.removeRequested'; path: string }
  | { type: 'challenge.removeConfirmed' }
  | { type: 'challenge.removeCancelled' }
  /** Try the failed load or save again. */
  | { type: 'challenge.retryRequested' };

/** A change of the draft, as the form's rules apply it. */
export type ChallengeEdit =
  | { kind: 'field'; path: string; value: string | boolean }
  | { kind: 'add'; list: string }
  | { kind: 'remove'; path: string };

export interface ChallengeFormInput {
  workspaceId: string;
}

/**
 * Items added since the form loaded, and which of their fields the author has touched. A field of
 * a new item shows its message only once touched (edited or left) or once a save was asked for,
 * so that a new, still empty question is not a wall of errors.
 */
export interface FreshItems {
  /** The added items' paths (`variants.0.sections.1.questions.2`). */
  items: string[];
  /** Their fields that were edited or left. */
  touched: string[];
}

const NO_FRESH_ITEMS: FreshItems = { items: [], touched: [] };

export interface ChallengeFormContext {
  workspaceId: string;
  /** The spec as it loaded, as a draft: the form starts from it. */
  loaded: ChallengeDraft;
  /** The item whose removal waits for confirmation. */
  confirming: string | null;
  /** Why the spec could not be loaded, camel-case split. */
  error: string | null;
  fresh: FreshItems;
}

const notProvided = (name: string): Error =>
  new Error(`challengeFormMachine: '${name}' is provided by the app (src/app)`);

/** The draft of a spec, normalized again: one from an older server, or none (a traversal's). */
const loadedDraft = (spec: unknown): ChallengeDraft => draftOf(normalizeChallengeSpec(spec));

/**
 * The challenge spec's fields (spec §3, §5), checked beside each field, saved with PUT challenge.
 * Malformed edits (a model traversal's) leave the draft as it was.
 */
export const challengeRules = (
  workspaceId: string,
): AutosaveFormRules<ChallengeDraft, ChallengeEdit> => ({
  edit: (draft, edit) => {
    switch (edit?.kind) {
      case 'field':
        return typeof edit.path === 'string' ? editDraft(draft, edit.path, edit.value) : draft;
      case 'add':
        return typeof edit.list === 'string' ? addItem(draft, edit.list) : draft;
      case 'remove':
        return removeItem(draft, edit.path);
      default:
        return draft;
    }
  },
  validate: validateDraft,
  saveInput: (draft) => ({ workspaceId, spec: specOf(draft) }),
});

/**
 * The Challenge tab (spec §2, §3, §5): loads the workspace's challenge spec, then edits it in an
 * autosaving form (`autosaveFormMachine`, its child) that saves it by itself once valid: 1 s after
 * the last change, or at once when a field is left; edits made during a save are saved next, and
 * a failed save keeps the draft and can be retried. Removing an item asks for confirmation here
 * first; a failed load offers a retry. New items keep their fields' messages quiet until touched.
 */
export const challengeFormMachine = setup({
  types: {
    input: {} as ChallengeFormInput,
    context: {} as ChallengeFormContext,
    events: {} as ChallengeFormEvent,
    children: {} as { form: 'form' },
  },
  actors: {
    /** GET challenge/{id}. */
    loadChallenge: fromPromise<ChallengeSpec, { workspaceId: string }>(() => {
      throw notProvided('loadChallenge');
    }),
    /** The draft's form; provide its `save` with PUT challenge/{id}. */
    form: autosaveFormMachine,
  },
  actions: {
    forwardEdit: sendTo('form', ({ event }) => {
      assertEvent(event, ['challenge.fieldEdited', 'challenge.itemAdded']);
      const edit: ChallengeEdit =
        event.type === 'challenge.itemAdded'
          ? { kind: 'add', list: event.list }
          : { kind: 'field', path: event.path, value: event.value };
      return { type: 'form.edited' as const, edit };
    }),
    forwardRemoval: sendTo('form', ({ context }) => ({
      type: 'form.edited' as const,
      edit: { kind: 'remove', path: context.confirming ?? '' } satisfies ChallengeEdit,
    })),
    forwardBlur: sendTo('form', { type: 'form.blurred' }),
    forwardRetry: sendTo('form', { type: 'form.retryRequested' }),
    askToRemove: assign({
      confirming: ({ event }) => {
        assertEvent(event, 'challenge.removeRequested');
        return typeof event.path === 'string' ? event.path : null;
      },
    }),
    cancelRemoval: assign({ confirming: null }),
    /** The new item's path is the list's length before the form adds it. */
    markAdded: assign({
      fresh: ({ context, event, self }) => {
        assertEvent(event, 'challenge.itemAdded');
        // Absent while a model traversal walks the graph without running the children.
        const draft = self.getSnapshot()?.children?.form?.getSnapshot().context.values;
        const list = draft ? valueAt(draft as ChallengeDraft, event.list) : undefined;
        if (!Array.isArray(list)) return context.fresh;
        return {
          ...context.fresh,
          items: [...context.fresh.items, `${event.list}.${list.length}`],
        };
      },
    }),
    markTouched: assign({
      fresh: ({ context, event }) => {
        assertEvent(event, ['challenge.fieldEdited', 'challenge.fieldBlurred']);
        const { path } = event;
        const { items, touched } = context.fresh;
        if (typeof path !== 'string' || touched.includes(path)) return context.fresh;
        if (!items.some((item) => isWithin(path, item))) return context.fresh;
        return { items, touched: [...touched, path] };
      },
    }),
    /** Paths after the confirmed removal: inside it gone, later siblings one index lower. */
    forgetRemoved: assign({
      fresh: ({ context }) => {
        const removed = context.confirming;
        if (removed === null) return context.fresh;
        const after = (paths: string[]) =>
          paths.flatMap((path) => pathAfterRemoval(path, removed) ?? []);
        return { items: after(context.fresh.items), touched: after(context.fresh.touched) };
      },
    }),
    revealMessages: assign({ fresh: NO_FRESH_ITEMS }),
    showError: assign({ error: (_, { error }: { error: unknown }) => errorMessage(error) }),
  },
  guards: {
    isConfirming: ({ context }) => context.confirming !== null,
  },
}).createMachine({
  id: 'challengeForm',
  description:
    "The Challenge tab: loads the spec, then edits it in an autosaving form (1 s after the last valid change, or on blur); confirms removals; new items' messages wait until touched or a save is asked for; a failed load is retried on request.",
  context: ({ input }) => ({
    workspaceId: input.workspaceId,
    loaded: loadedDraft(undefined),
    confirming: null,
    error: null,
    fresh: NO_FRESH_ITEMS,
  }),
  initial: 'loading',
  states: {
    loading: {
      invoke: {
        src: 'loadChallenge',
        input: ({ context }) => ({ workspaceId: context.workspaceId }),
        onDone: {
          target: 'ready',
          actions: assign({ loaded: ({ event }) => loadedDraft(event.output), error: null }),
        },
        onError: {
          target: 'loadFailed',
          actions: { type: 'showError', params: ({ event }) => ({ error: event.error }) },
        },
      },
    },
    /** The spec could not be loaded: nothing to edit until a retry succeeds. */
    loadFailed: {
      on: { 'challenge.retryRequested': 'loading' },
    },
    ready: {
      invoke: {
        id: 'form',
        src: 'form',
        input: ({ context }) => ({
          values: context.loaded,
          rules: challengeRules(context.workspaceId),
          autosaveMs: AUTOSAVE_DELAY_MS,
        }),
      },
      on: {
        'challenge.fieldEdited': { actions: ['markTouched', 'forwardEdit'] },
        'challenge.itemAdded': { actions: ['markAdded', 'forwardEdit'] },
        'challenge.fieldBlurred': { actions: ['markTouched', 'forwardBlur'] },
        'challenge.saveRequested': { actions: ['revealMessages', 'forwardBlur'] },
        'challenge.retryRequested': { actions: 'forwardRetry' },
        'challenge.removeRequested': { actions: 'askToRemove' },
        'challenge.removeCancelled': { actions: 'cancelRemoval' },
        'challenge.removeConfirmed': {
          guard: 'isConfirming',
          actions: ['forwardRemoval', 'forgetRemoved', 'cancelRemoval'],
        },
      },
    },
  },
});

export type ChallengeFormActorRef = ActorRefFrom<typeof challengeFormMachine>;
export type ChallengeFormSnapshot = SnapshotFrom<typeof challengeFormMachine>;
