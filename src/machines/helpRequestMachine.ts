import {
  assertEvent,
  assign,
  fromEventObservable,
  fromPromise,
  setup,
  type ActorRefFrom,
  type SnapshotFrom,
} from 'xstate';
import type { HelpRequest } from '../api/help';
import { isSendable, latestHelp, MAX_HELP_MESSAGE, replacesHelp } from '../domain/help';
import { errorMessage } from '../domain/text';
import type { HelpUpdatedEvent } from '../streams/help';

export type HelpRequestEvent =
  | { type: 'help.composeRequested' }
  | { type: 'help.draftChanged'; text: string }
  | { type: 'help.sendRequested' }
  | { type: 'help.composeCancelled' }
  | { type: 'help.cancelRequested' }
  | HelpUpdatedEvent;

export interface HelpRequestInput {
  gamespaceId: string;
}

export interface HelpRequestContext extends HelpRequestInput {
  /** The request the page shows: the open one, else the last raised; null for none. */
  request: HelpRequest | null;
  /** What is in the message box. */
  draft: string;
  error: string | null;
}

const notProvided = (name: string): Error =>
  new Error(`helpRequestMachine: '${name}' is provided by the app (src/app)`);

/**
 * A player's raised hand on the play page: loads the gamespace's help requests, lets the player
 * write a short message and send it, then says whether someone is on it and shows the answer, live
 * from the HELP.UPDATED events of the gamespace's channel (the play page's session listens there).
 * An open request can be cancelled; after an answer or a cancel the player may ask again.
 */
export const helpRequestMachine = setup({
  types: {
    input: {} as HelpRequestInput,
    context: {} as HelpRequestContext,
    events: {} as HelpRequestEvent,
    // 'busy': a load, a raise or a cancel is on its way; 'claimed': someone is on the open one.
    tags: {} as 'busy' | 'claimed',
  },
  actors: {
    /** GET gamespace/{id}/help. */
    loadHelp: fromPromise<HelpRequest[], { gamespaceId: string }>(() => {
      throw notProvided('loadHelp');
    }),
    /** POST gamespace/{id}/help. */
    raiseHelp: fromPromise<HelpRequest, { gamespaceId: string; message: string }>(() => {
      throw notProvided('raiseHelp');
    }),
    /** POST help/{id}/cancel. */
    cancelHelp: fromPromise<HelpRequest, { id: string }>(() => {
      throw notProvided('cancelHelp');
    }),
    /** The gamespace's help requests as they change (src/streams/help.ts). */
    helpUpdates: fromEventObservable<HelpUpdatedEvent, { gamespaceId: string }>(() => {
      throw notProvided('helpUpdates');
    }),
  },
  guards: {
    hasMessage: ({ context }) => isSendable(context.draft, MAX_HELP_MESSAGE),
    isOpen: ({ context }) => context.request?.status === 'open',
    isAnswered: ({ context }) => context.request?.status === 'answered',
    isClaimed: ({ context }) => !!context.request?.claimedById,
    /** A request heard live that is the one shown, or one raised since. */
    isNews: ({ context, event }) => {
      assertEvent(event, 'help.updated');
      return (
        event.request.gamespaceId === context.gamespaceId &&
        replacesHelp(context.request, event.request)
      );
    },
  },
  actions: {
    setDraft: assign({
      draft: ({ event }) => {
        assertEvent(event, 'help.draftChanged');
        return event.text;
      },
    }),
    hear: assign({
      request: ({ event }) => {
        assertEvent(event, 'help.updated');
        return event.request;
      },
      error: null,
    }),
  },
}).createMachine({
  id: 'helpRequest',
  description:
    "A player's raised hand: loads the gamespace's help requests, sends a message, follows its HELP.UPDATED events (waiting, someone on it, answered) and cancels it.",
  context: ({ input }) => ({ ...input, request: null, draft: '', error: null }),
  invoke: {
    src: 'helpUpdates',
    input: ({ context }) => ({ gamespaceId: context.gamespaceId }),
  },
  on: {
    // Whatever the page was doing, what the server says now decides what it shows.
    'help.updated': { guard: 'isNews', target: '.shown', actions: 'hear' },
  },
  initial: 'loading',
  states: {
    loading: {
      tags: ['busy'],
      invoke: {
        src: 'loadHelp',
        input: ({ context }) => ({ gamespaceId: context.gamespaceId }),
        onDone: {
          target: 'shown',
          // Graph traversals send done events bare: no list is an empty one.
          actions: assign({ request: ({ event }) => latestHelp(event.output ?? []) }),
        },
        onError: {
          target: 'shown',
          actions: assign({ error: ({ event }) => errorMessage(event.error) }),
        },
      },
    },
    /** Where a request's status leads: the page shows it as it is. */
    shown: {
      always: [
        { guard: 'isOpen', target: 'open' },
        { guard: 'isAnswered', target: 'answered' },
        { target: 'idle' },
      ],
    },
    /** No request, or the last one was cancelled: Ask for help. */
    idle: {
      on: { 'help.composeRequested': 'composing' },
    },
    composing: {
      on: {
        'help.draftChanged': { actions: 'setDraft' },
        'help.sendRequested': { guard: 'hasMessage', target: 'raising' },
        'help.composeCancelled': 'shown',
      },
    },
    raising: {
      tags: ['busy'],
      invoke: {
        src: 'raiseHelp',
        input: ({ context }) => ({
          gamespaceId: context.gamespaceId,
          message: context.draft.trim(),
        }),
        onDone: {
          target: 'shown',
          actions: assign({
            request: ({ context, event }) => event.output ?? context.request,
            draft: '',
            error: null,
          }),
        },
        onError: {
          target: 'composing',
          actions: assign({ error: ({ event }) => errorMessage(event.error) }),
        },
      },
    },
    /** Raised: waiting for someone, or someone is on it (tag 'claimed'). */
    open: {
      initial: 'waiting',
      states: {
        waiting: { always: { guard: 'isClaimed', target: 'claimed' } },
        claimed: { tags: ['claimed'] },
      },
      on: { 'help.cancelRequested': 'cancelling' },
    },
    cancelling: {
      tags: ['busy'],
      invoke: {
        src: 'cancelHelp',
        input: ({ context }) => ({ id: context.request?.id ?? '' }),
        onDone: {
          target: 'shown',
          actions: assign({
            request: ({ context, event }) => event.output ?? context.request,
            error: null,
          }),
        },
        // It may have been answered meanwhile: the page shows what it knows and why.
        onError: {
          target: 'shown',
          actions: assign({ error: ({ event }) => errorMessage(event.error) }),
        },
      },
    },
    /** The answer is shown; the player may ask again. */
    answered: {
      on: { 'help.composeRequested': 'composing' },
    },
  },
});

export type HelpRequestActorRef = ActorRefFrom<typeof helpRequestMachine>;
export type HelpRequestSnapshot = SnapshotFrom<typeof helpRequestMachine>;
