import {
  assertEvent,
  assign,
  fromCallback,
  fromEventObservable,
  fromPromise,
  setup,
  type ActorRefFrom,
  type EventObject,
  type SnapshotFrom,
} from 'xstate';
import type { AgentPresence, Dispatch, DispatchLog, NewDispatch } from '../api/dispatch';
import { errorMessage } from '../domain/text';
import type { DispatchRecordEvent } from '../streams/dispatches';
import { mergeDispatch, parseCommand, removeDispatch } from './dispatcherRules';

/** The log scrolls to its end this long after an entry arrives (spec §9). */
export const LOG_SCROLL_DELAY_MS = 50;
/** The console's log is this tall (spec §9). */
export const LOG_HEIGHT_PX = 480;
/**
 * The log and who listens are loaded again this often while the console is open: observers may
 * not listen on the gamespace's channel, so without it their answers and agents never change.
 */
export const LOG_REFRESH_MS = 5_000;

export type DispatcherConsoleEvent =
  | { type: 'dispatcher.draftChanged'; text: string }
  | { type: 'dispatcher.sendRequested' }
  | { type: 'dispatcher.refreshRequested' }
  | DispatchRecordEvent;

export interface DispatcherConsoleInput {
  gamespaceId: string;
}

export interface DispatcherConsoleContext extends DispatcherConsoleInput {
  /** The log, oldest first, as loaded and as heard since. */
  entries: Dispatch[];
  /** Who listens, by machine, as last loaded; null until then or when the server cannot say. */
  agents: AgentPresence[] | null;
  /** What is in the input. */
  draft: string;
  /** The command on its way, given back to the input if it fails. */
  sent: string;
  error: string | null;
}

const notProvided = (name: string): Error =>
  new Error(`dispatcherConsoleMachine: '${name}' is provided by the app (src/app)`);

/**
 * The Dispatcher tab of an expanded gamespace (spec §2): the gamespace's dispatches, kept up to
 * date by the DispatchEvents of its channel and loaded again now and then with which machines
 * have an agent listening, and one input whose command goes to the agents in its machines. The
 * channel is listened to while the console is open.
 */
export const dispatcherConsoleMachine = setup({
  types: {
    input: {} as DispatcherConsoleInput,
    context: {} as DispatcherConsoleContext,
    events: {} as DispatcherConsoleEvent,
    // 'loading': the log is on its way; 'sending': a command is on its way.
    tags: {} as 'loading' | 'sending',
  },
  actors: {
    /** GET dispatches?gs=, and GET dispatches/agents?gs= beside it. */
    loadDispatches: fromPromise<DispatchLog, { gamespaceId: string }>(() => {
      throw notProvided('loadDispatches');
    }),
    /** POST dispatch. */
    sendDispatch: fromPromise<Dispatch, NewDispatch>(() => {
      throw notProvided('sendDispatch');
    }),
    /** Listen on the gamespace's channel while the console is open, Leave after. */
    listenToChannel: fromCallback<EventObject, { channelId: string }>(() => {
      throw notProvided('listenToChannel');
    }),
    /** The gamespace's DispatchEvents (src/streams/dispatches.ts). */
    dispatchEvents: fromEventObservable<DispatchRecordEvent, { gamespaceId: string }>(() => {
      throw notProvided('dispatchEvents');
    }),
  },
  guards: {
    hasCommand: ({ context }) => parseCommand(context.draft) !== null,
  },
  delays: { logRefresh: LOG_REFRESH_MS },
  actions: {
    heard: assign({
      entries: ({ context, event }) => {
        assertEvent(event, ['dispatch.created', 'dispatch.updated']);
        return mergeDispatch(context.entries, event.dispatch);
      },
    }),
    forget: assign({
      entries: ({ context, event }) => {
        assertEvent(event, 'dispatch.deleted');
        return removeDispatch(context.entries, event.id);
      },
    }),
    setDraft: assign({
      draft: ({ event }) => {
        assertEvent(event, 'dispatcher.draftChanged');
        return event.text;
      },
    }),
  },
}).createMachine({
  id: 'dispatcherConsole',
  description:
    "A gamespace's dispatcher console: loads its dispatches and which machines have an agent listening (again every 5 s), follows its DispatchEvents, and sends each typed command ('[target] command') to the agents.",
  context: ({ input }) => ({
    ...input,
    entries: [],
    agents: null,
    draft: '',
    sent: '',
    error: null,
  }),
  invoke: [
    {
      src: 'listenToChannel',
      input: ({ context }) => ({ channelId: context.gamespaceId }),
    },
    {
      src: 'dispatchEvents',
      input: ({ context }) => ({ gamespaceId: context.gamespaceId }),
    },
  ],
  on: {
    'dispatch.created': { actions: 'heard' },
    'dispatch.updated': { actions: 'heard' },
    'dispatch.deleted': { actions: 'forget' },
    'dispatcher.draftChanged': { actions: 'setDraft' },
  },
  initial: 'loading',
  states: {
    loading: {
      tags: ['loading'],
      invoke: {
        id: 'loadDispatches',
        src: 'loadDispatches',
        input: ({ context }) => ({ gamespaceId: context.gamespaceId }),
        onDone: {
          target: 'ready',
          actions: assign({
            entries: ({ event }) => event.output?.entries ?? [],
            agents: ({ event }) => event.output?.agents ?? null,
            error: null,
          }),
        },
        onError: {
          target: 'ready',
          actions: assign({ error: ({ event }) => errorMessage(event.error) }),
        },
      },
    },
    ready: {
      after: { logRefresh: 'loading' },
      on: {
        'dispatcher.sendRequested': { guard: 'hasCommand', target: 'sending' },
        'dispatcher.refreshRequested': 'loading',
      },
    },
    sending: {
      tags: ['sending'],
      // The input is cleared as the command goes; a failure gives it back.
      entry: assign(({ context }) => ({ sent: context.draft, draft: '' })),
      invoke: {
        id: 'sendDispatch',
        src: 'sendDispatch',
        input: ({ context }) => {
          const command = parseCommand(context.sent);
          return {
            targetGroup: context.gamespaceId,
            targetName: command?.targetName ?? null,
            trigger: command?.trigger ?? '',
          };
        },
        onDone: {
          target: 'ready',
          // The POST's answer is the entry, unless its DISPATCH.CREATE came first.
          actions: assign(({ context, event }) => ({
            entries: event.output ? mergeDispatch(context.entries, event.output) : context.entries,
            sent: '',
            error: null,
          })),
        },
        onError: {
          target: 'ready',
          actions: assign(({ context, event }) => ({
            draft: context.draft === '' ? context.sent : context.draft,
            sent: '',
            error: errorMessage(event.error),
          })),
        },
      },
    },
  },
});

export type DispatcherConsoleActorRef = ActorRefFrom<typeof dispatcherConsoleMachine>;
export type DispatcherConsoleSnapshot = SnapshotFrom<typeof dispatcherConsoleMachine>;
