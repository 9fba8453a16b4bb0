import {
  assertEvent,
  assign,
  fromCallback,
  fromEventObservable,
  fromPromise,
  sendTo,
  setup,
  type ActorRefFrom,
  type SnapshotFrom,
} from 'xstate';
import type { HelpRequest } from '../api/help';
import { isSendable, MAX_HELP_ANSWER, mergeHelp, queueOrder } from '../domain/help';
import { errorMessage } from '../domain/text';
import type { HelpUpdatedEvent } from '../streams/help';

/**
 * The queue is loaded again this often: what was missed while the hub was away comes back, and
 * a queue of every workspace learns of workspaces whose channel it did not listen on yet.
 */
export const QUEUE_REFRESH_MS = 30_000;

/** Which observe channels the queue listens on; the listener joins and leaves to match. */
export type ChannelsChanged = { type: 'channels.changed'; channelIds: string[] };

export type HelpQueueEvent =
  | { type: 'clock.ticked'; now: number }
  | { type: 'queue.refreshRequested' }
  | { type: 'queue.claimRequested'; id: string }
  | { type: 'queue.answerChanged'; id: string; text: string }
  | { type: 'queue.answerRequested'; id: string }
  | HelpUpdatedEvent;

export interface HelpQueueInput {
  /** One workspace's queue, or (undefined) that of every workspace the viewer observes. */
  workspaceId: string | undefined;
  /** When the page opened; the clock moves it on. */
  now: number;
}

/** A loaded queue, and (of every workspace) the workspaces whose channels to listen on. */
export interface LoadedQueue {
  requests: HelpRequest[];
  /** The workspaces with a running gamespace the viewer observes; [] for one workspace's. */
  workspaceIds: string[];
}

export interface HelpQueueContext extends HelpQueueInput {
  /** Open first, oldest first, then the last closed; as loaded and as heard since. */
  requests: HelpRequest[];
  /** The running gamespaces' workspaces, as last loaded (a queue of every workspace). */
  watched: string[];
  /** What is in each request's answer box, by request id. */
  answers: Record<string, string>;
  /** The request a claim or an answer is on its way for. */
  actingOn: string | null;
  error: string | null;
}

const notProvided = (name: string): Error =>
  new Error(`helpQueueMachine: '${name}' is provided by the app (src/app)`);

/** The observe channel of a workspace (server/core/observeFeed.ts). */
export const observeChannelOf = (workspaceId: string) => `observe:${workspaceId}`;

/**
 * One workspace's channel; of every workspace, those of the workspaces with a running gamespace
 * (where a hand may be raised) and of those in the queue.
 */
export const queueChannels = (
  context: Pick<HelpQueueContext, 'workspaceId' | 'requests' | 'watched'>,
) =>
  context.workspaceId !== undefined
    ? [observeChannelOf(context.workspaceId)]
    : [...new Set([...context.watched, ...context.requests.map((r) => r.workspaceId)])]
        .sort()
        .map(observeChannelOf);

/**
 * The observers' help queue (one workspace's, or every one's they observe): loads it, listens on
 * the observe channel(s) (of every workspace: those with a running gamespace) for HELP.UPDATED and keeps it in queue order, loads it again every
 * QUEUE_REFRESH_MS, and claims or answers one request at a time.
 */
export const helpQueueMachine = setup({
  types: {
    input: {} as HelpQueueInput,
    context: {} as HelpQueueContext,
    events: {} as HelpQueueEvent,
    // 'loading': the queue is on its way (the list shows what it had); 'acting': a claim or an
    // answer is on its way.
    tags: {} as 'loading' | 'acting',
  },
  actors: {
    /** GET help?workspaceId=, and of every workspace GET help/workspaces beside it. */
    loadQueue: fromPromise<LoadedQueue, { workspaceId: string | undefined }>(() => {
      throw notProvided('loadQueue');
    }),
    /** POST help/{id}/claim. */
    claimHelp: fromPromise<HelpRequest, { id: string }>(() => {
      throw notProvided('claimHelp');
    }),
    /** POST help/{id}/answer. */
    answerHelp: fromPromise<HelpRequest, { id: string; text: string }>(() => {
      throw notProvided('answerHelp');
    }),
    /** Listens on the channels it is told of, and leaves them when told or stopped. */
    listenToChannels: fromCallback<ChannelsChanged, { channelIds: string[] }>(() => {
      throw notProvided('listenToChannels');
    }),
    /** HELP.UPDATED of the queue's workspace(s) (src/streams/help.ts). */
    helpUpdates: fromEventObservable<HelpUpdatedEvent, { workspaceId: string | undefined }>(() => {
      throw notProvided('helpUpdates');
    }),
    clock: fromEventObservable<{ type: 'clock.ticked'; now: number }, void>(() => {
      throw notProvided('clock');
    }),
  },
  guards: {
    isOfQueue: ({ context, event }) => {
      assertEvent(event, 'help.updated');
      return context.workspaceId === undefined || event.request.workspaceId === context.workspaceId;
    },
    hasAnswer: ({ context, event }) => {
      assertEvent(event, 'queue.answerRequested');
      return isSendable(context.answers[event.id] ?? '', MAX_HELP_ANSWER);
    },
  },
  actions: {
    merge: assign({
      requests: ({ context, event }) => {
        assertEvent(event, 'help.updated');
        return mergeHelp(context.requests, event.request);
      },
    }),
    setAnswer: assign({
      answers: ({ context, event }) => {
        assertEvent(event, 'queue.answerChanged');
        return { ...context.answers, [event.id]: event.text };
      },
    }),
    tellChannels: sendTo('channels', ({ context }) => ({
      type: 'channels.changed' as const,
      channelIds: queueChannels(context),
    })),
  },
  delays: { queueRefresh: QUEUE_REFRESH_MS },
}).createMachine({
  id: 'helpQueue',
  description:
    "The observers' help queue of one workspace or all: loads it, follows HELP.UPDATED on the observe channels, reloads every 30 s, and claims or answers a request.",
  context: ({ input }) => ({
    ...input,
    requests: [],
    watched: [],
    answers: {},
    actingOn: null,
    error: null,
  }),
  invoke: [
    {
      id: 'channels',
      src: 'listenToChannels',
      input: ({ context }) => ({ channelIds: queueChannels(context) }),
    },
    { src: 'helpUpdates', input: ({ context }) => ({ workspaceId: context.workspaceId }) },
    { src: 'clock' },
  ],
  on: {
    'help.updated': { guard: 'isOfQueue', actions: ['merge', 'tellChannels'] },
    'queue.answerChanged': { actions: 'setAnswer' },
    'clock.ticked': { actions: assign({ now: ({ event }) => event.now }) },
  },
  initial: 'loading',
  states: {
    loading: {
      tags: ['loading'],
      invoke: {
        src: 'loadQueue',
        input: ({ context }) => ({ workspaceId: context.workspaceId }),
        onDone: {
          target: 'ready',
          actions: [
            // Graph traversals send done events bare: no queue is an empty one.
            assign({
              requests: ({ event }) => queueOrder(event.output?.requests ?? []),
              watched: ({ event }) => event.output?.workspaceIds ?? [],
              error: null,
            }),
            'tellChannels',
          ],
        },
        onError: {
          target: 'ready',
          actions: assign({ error: ({ event }) => errorMessage(event.error) }),
        },
      },
    },
    ready: {
      after: { queueRefresh: 'loading' },
      on: {
        'queue.refreshRequested': 'loading',
        'queue.claimRequested': {
          target: 'claiming',
          actions: assign({ actingOn: ({ event }) => event.id }),
        },
        'queue.answerRequested': {
          guard: 'hasAnswer',
          target: 'answering',
          actions: assign({ actingOn: ({ event }) => event.id }),
        },
      },
    },
    claiming: {
      tags: ['acting'],
      invoke: {
        src: 'claimHelp',
        input: ({ context }) => ({ id: context.actingOn ?? '' }),
        onDone: {
          target: 'ready',
          actions: assign(({ context, event }) => ({
            requests: event.output ? mergeHelp(context.requests, event.output) : context.requests,
            actingOn: null,
            error: null,
          })),
        },
        onError: {
          target: 'ready',
          actions: assign({ actingOn: null, error: ({ event }) => errorMessage(event.error) }),
        },
      },
    },
    answering: {
      tags: ['acting'],
      invoke: {
        src: 'answerHelp',
        input: ({ context }) => ({
          id: context.actingOn ?? '',
          text: (context.answers[context.actingOn ?? ''] ?? '').trim(),
        }),
        onDone: {
          target: 'ready',
          actions: assign(({ context, event }) => {
            const { [context.actingOn ?? '']: _sent, ...answers } = context.answers;
            return {
              requests: event.output ? mergeHelp(context.requests, event.output) : context.requests,
              answers,
              actingOn: null,
              error: null,
            };
          }),
        },
        // The text stays in its box to send again.
        onError: {
          target: 'ready',
          actions: assign({ actingOn: null, error: ({ event }) => errorMessage(event.error) }),
        },
      },
    },
  },
});

export type { HelpRequest };
export type HelpQueueActorRef = ActorRefFrom<typeof helpQueueMachine>;
export type HelpQueueSnapshot = SnapshotFrom<typeof helpQueueMachine>;
