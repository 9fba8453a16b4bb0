import {
  and,
  assertEvent,
  assign,
  enqueueActions,
  fromPromise,
  setup,
  stateIn,
  type ActorRef,
  type ActorRefFrom,
  type AnyActorLogic,
  type Snapshot,
  type SnapshotFrom,
} from 'xstate';
import { errorMessage } from '../domain/text';
import { hasChanges, mergeRemote } from './formSync';

/** Validation of a form's values by field (or path); empty when they may be saved. */
export type FormMessages = Readonly<Partial<Record<string, string>>>;

/**
 * What makes a form the form it is: how one of its edits changes the values, what is wrong with
 * them, and what its save sends. Pure functions of the parent's domain, given with the input, so
 * that every autosaving form runs this one machine.
 */
export interface AutosaveFormRules<V extends object = object, E = unknown> {
  /** The values after `edit`, the parent's own description of a change (which may be malformed). */
  edit(values: V, edit: E): V;
  validate(values: V): FormMessages;
  /** The input of the `save` actor for these values. */
  saveInput(values: V): unknown;
  /** Why a save failed, as the form shows it; camel-case split (`errorMessage`) when absent. */
  describeError?(error: unknown): string;
}

export type AutosaveFormEvent =
  /** The user changed the form; `edit` says how, in the terms of the form's rules. */
  | { type: 'form.edited'; edit: unknown }
  /** A field lost focus (or a choice was made): the moment a valid change is saved (spec §4). */
  | { type: 'form.blurred' }
  /** Retry was pressed after a failed save. */
  | { type: 'form.retryRequested' }
  /** The server's copy changed (another user's save, or the echo of ours). */
  | { type: 'form.updatedRemotely'; values: object };

/** What the form tells its parent: the server has `values` now. */
export type AutosaveFormReport = { type: 'form.saved'; values: object };

export interface AutosaveFormInput {
  /** The server's copy, as the form shows it. */
  values: object;
  rules: AutosaveFormRules;
  /** Also save this long after the last change, not only when a field is left; null: only then. */
  autosaveMs?: number | null;
  reportTo?: ActorRef<Snapshot<unknown>, AutosaveFormReport>;
}

export interface AutosaveFormContext {
  rules: AutosaveFormRules;
  /** What the form shows. */
  values: object;
  /** The server's copy as last known; a field differing from it has an unsaved change. */
  saved: object;
  /** The values of the save in flight (or of the last one). */
  sending: object;
  messages: FormMessages;
  /** Why the last save failed; kept until the next save starts. */
  error: string | null;
  autosaveMs: number | null;
  reportTo: AutosaveFormInput['reportTo'] | null;
}

/**
 * The `save` call of a form: its input is what the form's rules make of the values (`saveInput`),
 * so each parent's form is provided with the call of its own resource, typed by that input.
 */
const save: AnyActorLogic = fromPromise<unknown, unknown>(() => {
  throw new Error("autosaveFormMachine: 'save' is provided by the app (src/app)");
});

/**
 * An autosaving form (spec §4 "Settings and template forms", §5 the challenge): it holds the
 * values, their validation and the server's copy, and saves by itself, only when the values are
 * valid and differ from the server's copy: when a field is left and, for a form with a delay,
 * that long after the last change. A blur during a save queues one more save of what changed
 * meanwhile; a failed save keeps the values, shows why, and is tried again on the next blur or on
 * Retry. Remote updates replace every field the user has not changed (see `mergeRemote`).
 * Parents decide which edits reach it (a deployed template's form gets none).
 */
export const autosaveFormMachine = setup({
  types: {
    input: {} as AutosaveFormInput,
    context: {} as AutosaveFormContext,
    events: {} as AutosaveFormEvent,
  },
  delays: {
    autosave: ({ context }) => context.autosaveMs ?? 0,
  },
  actors: { save },
  actions: {
    edit: assign(({ context, event }) => {
      assertEvent(event, 'form.edited');
      const values = context.rules.edit(context.values, event.edit);
      return { values, messages: context.rules.validate(values) };
    }),
    mergeRemote: assign(({ context, event }) => {
      assertEvent(event, 'form.updatedRemotely');
      // A traversal's event carries no values: nothing to merge.
      if (typeof event.values !== 'object' || event.values === null) return {};
      const merged = mergeRemote(context.values, context.saved, event.values);
      return { ...merged, messages: context.rules.validate(merged.values) };
    }),
    startSending: assign({ sending: ({ context }) => context.values, error: null }),
    /** The server has what was sent: it is the new saved copy, and the parent hears of it. */
    markSent: enqueueActions(({ context, enqueue }) => {
      enqueue.assign({ saved: context.sending });
      if (context.reportTo) {
        enqueue.sendTo(context.reportTo, { type: 'form.saved', values: context.sending });
      }
    }),
    showError: assign({
      error: ({ context }, { error }: { error: unknown }) =>
        (context.rules.describeError ?? errorMessage)(error),
    }),
  },
  guards: {
    isValid: ({ context }) => Object.keys(context.messages).length === 0,
    canSave: ({ context }) =>
      Object.keys(context.messages).length === 0 && hasChanges(context.values, context.saved),
    /** Changes were blurred during the save, and they may still be saved. */
    canResave: and([stateIn('#autosaveForm.saving.resaveQueued'), 'isValid']),
    /** The user typed while the save was in flight. */
    isChangedSinceSent: ({ context }) => hasChanges(context.values, context.sending),
    /** Something changed since the values in flight were taken, and it may be saved. */
    hasUnsentChanges: ({ context }) =>
      Object.keys(context.messages).length === 0 && hasChanges(context.values, context.sending),
    hasAutosaveDelay: ({ context }) => context.autosaveMs !== null,
  },
}).createMachine({
  id: 'autosaveForm',
  description:
    'An autosaving form: saves valid changes when a field is left (and, with a delay, that long after the last change); a blur during a save queues another; failures keep the values and retry on blur or Retry; remote updates replace the fields not being edited.',
  context: ({ input }) => ({
    rules: input.rules,
    values: input.values,
    saved: input.values,
    sending: input.values,
    messages: input.rules.validate(input.values),
    error: null,
    autosaveMs: input.autosaveMs ?? null,
    reportTo: input.reportTo ?? null,
  }),
  on: { 'form.updatedRemotely': { actions: 'mergeRemote' } },
  initial: 'pristine',
  states: {
    /** Nothing changed since the form started: a blur saves nothing. */
    pristine: {
      on: { 'form.edited': { target: 'editing', actions: 'edit' } },
    },
    /** Changed and not saved; invalid values wait here until they are fixed. */
    editing: {
      on: {
        // Entered again, so that a form with a delay waits from the last change (debounce).
        'form.edited': { target: 'editing', reenter: true, actions: 'edit' },
        'form.blurred': { guard: 'canSave', target: 'saving' },
      },
      initial: 'choosing',
      states: {
        choosing: {
          always: [{ guard: 'hasAutosaveDelay', target: 'debouncing' }, { target: 'waiting' }],
        },
        /** Saved when a field is left. */
        waiting: {},
        /** Saved when a field is left, or once the user has stopped changing it for the delay. */
        debouncing: {
          after: { autosave: { guard: 'canSave', target: '#autosaveForm.saving' } },
        },
      },
    },
    saving: {
      entry: 'startSending',
      invoke: {
        id: 'save',
        src: 'save',
        // The save's input is any kind of form's (see `save`): typed here by hand.
        input: ({ context }: { context: AutosaveFormContext }) =>
          context.rules.saveInput(context.sending),
        onDone: [
          { guard: 'canResave', target: 'saving', reenter: true, actions: 'markSent' },
          { guard: 'isChangedSinceSent', target: 'editing', actions: 'markSent' },
          { target: 'saved', actions: 'markSent' },
        ],
        onError: {
          target: 'failed',
          actions: { type: 'showError', params: ({ event }) => ({ error: event.error }) },
        },
      },
      on: { 'form.edited': { actions: 'edit' } },
      initial: 'sending',
      states: {
        sending: {
          on: { 'form.blurred': { guard: 'hasUnsentChanges', target: 'resaveQueued' } },
        },
        /** Changes blurred while the save was in flight: saved as soon as it completes. */
        resaveQueued: {},
      },
    },
    saved: {
      on: { 'form.edited': { target: 'editing', actions: 'edit' } },
    },
    /** The values are kept; the next blur or Retry with valid changes tries again. */
    failed: {
      on: {
        'form.edited': { target: 'editing', actions: 'edit' },
        'form.blurred': { guard: 'canSave', target: 'saving' },
        'form.retryRequested': { guard: 'canSave', target: 'saving' },
      },
    },
  },
});

export type AutosaveFormActorRef = ActorRefFrom<typeof autosaveFormMachine>;
export type AutosaveFormSnapshot = SnapshotFrom<typeof autosaveFormMachine>;
