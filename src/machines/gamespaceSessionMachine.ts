import {
  assign,
  fromCallback,
  fromEventObservable,
  fromPromise,
  sendTo,
  setup,
  type ActorRefFrom,
  type EventObject,
  type SnapshotFrom,
} from 'xstate';
import type { GameState, LaunchSettings } from '../api/play';
import { session, type Session } from '../domain/session';
import { isUnsetDate } from '../domain/time';
import { errorMessage } from '../domain/text';
import { questionSetMachine } from './questionSetMachine';

export type { GameState, LaunchSettings };

/** The window is recomputed from the stored state this often (spec §4, §9). */
export const STATE_REFRESH_MS = 1_000;
/** 'copied' shows this long after the invitation link is copied (spec §4, §9). */
export const INVITE_COPIED_MS = 3_000;

/** The play page launches with these (spec §3, §9: minutes 0 there, the workspace's duration). */
export const PLAY_PAGE_LAUNCH: Omit<LaunchSettings, 'resourceId'> = {
  variant: 0,
  maxAttempts: 3,
  maxMinutes: 0,
  points: 100,
  allowReset: true,
  allowPreview: false,
  startGamespace: true,
};

/** Every action of the page asks first (spec §5). */
export type SessionAction = 'start' | 'end' | 'reset' | 'deploy' | 'destroy';

export type GamespaceSessionEvent =
  | { type: 'clock.ticked'; now: number }
  /** A GameEvent of the gamespace's channel: its model replaces the state. */
  | { type: 'game.updated'; state: GameState }
  /** The quiz graded a set; the answer is the updated gamespace. */
  | { type: 'quiz.graded'; state: GameState }
  | { type: 'session.startRequested' }
  | { type: 'session.endRequested' }
  | { type: 'session.resetRequested' }
  | { type: 'session.deployRequested' }
  | { type: 'session.destroyRequested' }
  | { type: 'session.actionConfirmed' }
  | { type: 'session.actionCancelled' }
  | { type: 'session.inviteRequested' }
  | { type: 'session.errorDismissed'; index: number };

export interface GamespaceSessionInput {
  /** The route's id: a gamespace's, or a workspace's (its active gamespace, else its preview). */
  id: string;
  /** Epoch ms when the page opened; clock ticks move it on. */
  now: number;
  /** The page's origin, for the invitation link. */
  origin: string;
}

export interface GamespaceSessionContext {
  /** What is loaded: the route id, then the workspace after a reset. */
  loadId: string;
  now: number;
  origin: string;
  /** Null until loaded, and when the load failed (the page then offers a launch). */
  game: GameState | null;
  /** The action awaiting confirmation or running. */
  action: SessionAction | null;
  /** Launch and complete errors, and the others, listed on the page (spec §8). */
  errors: string[];
  /** The channel listened to, while the gamespace is active. */
  channelId: string | null;
  /** The gamespace whose quiz runs. */
  quizId: string | null;
  inviteLink: string | null;
}

/** The window of the stored state at the context's time. */
export const sessionOf = (context: Pick<GamespaceSessionContext, 'game' | 'now'>): Session =>
  session(context.game ?? {}, context.now);

const hasGamespace = (game: GameState | null): game is GameState & { id: string } =>
  typeof game?.id === 'string' && game.id !== '';

const isActive = (game: GameState | null): boolean => hasGamespace(game) && game.isActive === true;

/** Answers are taken during a game that is not over (spec §4 Question sets). */
export const isPlayable = (game: GameState | null, now: number): boolean => {
  const s = session(game ?? {}, now);
  return s.window === 'during' && !s.isOver;
};

/** A started gamespace has a quiz (the server sends its challenge once started). */
const isStarted = (game: GameState | null): boolean =>
  hasGamespace(game) && !isUnsetDate(game.startTime);

export const hasMachines = (game: GameState | null): boolean => (game?.vms ?? []).length > 0;

/** The link to share: /mojo/{id}/{slug}/{code}. */
export const invitationLink = (origin: string, game: GameState, code: string): string =>
  `${origin}/mojo/${encodeURIComponent(game.id ?? '')}/${encodeURIComponent(game.slug ?? 'game')}/${encodeURIComponent(code)}`;

const notProvided = (name: string): Error =>
  new Error(`gamespaceSessionMachine: '${name}' is provided by the app (src/app)`);

/**
 * The gamespace play page (spec §2, §4). Regions:
 * - `window`: before, during or after, recomputed from the stored state on every tick.
 * - `activity`: loading, then idle; each action (start = launch, end = complete, reset = delete,
 *   deploy = start, destroy = stop) is confirmed, then runs; its answer replaces the state and its
 *   failure is listed. `launching` carries the spinner.
 * - `channel`: while the gamespace is active its hub channel is listened to, and each GameEvent
 *   replaces the state.
 * - `quiz`: the question sets of a started gamespace, told when the game is playable.
 * - `invite`: generates a code, copies the link, and 'copied' shows for 3 s.
 */
export const gamespaceSessionMachine = setup({
  types: {
    input: {} as GamespaceSessionInput,
    context: {} as GamespaceSessionContext,
    events: {} as GamespaceSessionEvent,
    // 'busy': an action or the load is running. 'launching': registering (the spinner).
    // 'copied': the invitation link was just copied.
    tags: {} as 'busy' | 'launching' | 'copied',
  },
  actors: {
    /** GET gamespace/{id}. */
    loadGamespace: fromPromise<GameState, { id: string }>(() => {
      throw notProvided('loadGamespace');
    }),
    /** POST gamespace. */
    registerGamespace: fromPromise<GameState, LaunchSettings>(() => {
      throw notProvided('registerGamespace');
    }),
    /** POST gamespace/{id}/start, /stop or /complete. */
    changeGamespace: fromPromise<GameState, { id: string; action: 'start' | 'stop' | 'complete' }>(
      () => {
        throw notProvided('changeGamespace');
      },
    ),
    /** DELETE gamespace/{id}. */
    deleteGamespace: fromPromise<unknown, { id: string }>(() => {
      throw notProvided('deleteGamespace');
    }),
    /** POST gamespace/{id}/invite: the code. */
    inviteToGamespace: fromPromise<{ code: string }, { id: string }>(() => {
      throw notProvided('inviteToGamespace');
    }),
    copyToClipboard: fromPromise<void, { text: string }>(() => {
      throw notProvided('copyToClipboard');
    }),
    /** Listens on the channel while running (Listen on start, Leave on stop). */
    listenToChannel: fromCallback<EventObject, { channelId: string }>(() => {
      throw notProvided('listenToChannel');
    }),
    /** GameEvents of the gamespace as `game.updated`. */
    gameEvents: fromEventObservable<GamespaceSessionEvent, { gamespaceId: string }>(() => {
      throw notProvided('gameEvents');
    }),
    /** `clock.ticked` every STATE_REFRESH_MS. */
    clock: fromEventObservable<{ type: 'clock.ticked'; now: number }, undefined>(() => {
      throw notProvided('clock');
    }),
    questionSet: questionSetMachine,
  },
  guards: {
    isDuring: ({ context }) => sessionOf(context).window === 'during',
    isAfter: ({ context }) => sessionOf(context).window === 'after',
    isBefore: ({ context }) => sessionOf(context).window === 'before',
    /** Start: before, or over/after (a new launch) (spec §4 Server actions). */
    canStart: ({ context }) => {
      const s = sessionOf(context);
      return s.window === 'before' || s.window === 'after' || s.isOver;
    },
    isInPlay: ({ context }) => isPlayable(context.game, context.now),
    canDeploy: ({ context }) => isPlayable(context.game, context.now) && !hasMachines(context.game),
    canDestroy: ({ context }) => isPlayable(context.game, context.now) && hasMachines(context.game),
    canInvite: ({ context }) => hasGamespace(context.game) && !sessionOf(context).isOver,
    isActive: ({ context }) => isActive(context.game),
    isInactive: ({ context }) => !isActive(context.game),
    hasChannelChanged: ({ context }) => context.channelId !== (context.game?.id ?? null),
    hasQuizChanged: ({ context }) => context.quizId !== (context.game?.id ?? null),
    isStarted: ({ context }) => isStarted(context.game),
    isNotStarted: ({ context }) => !isStarted(context.game),
  },
  actions: {
    chooseAction: assign((_, params: { action: SessionAction }) => ({ action: params.action })),
    replaceGame: assign({
      game: ({ context, event }) =>
        event.type === 'game.updated' || event.type === 'quiz.graded' ? event.state : context.game,
    }),
    recordError: assign({
      errors: ({ context, event }) => [
        ...context.errors,
        errorMessage((event as { error?: unknown }).error),
      ],
    }),
    tellQuizPlayability: sendTo('questionSet', ({ context }) => ({
      type: 'quiz.playabilityChanged' as const,
      playable: isPlayable(context.game, context.now),
    })),
  },
  delays: { stateRefresh: STATE_REFRESH_MS, inviteCopied: INVITE_COPIED_MS },
}).createMachine({
  id: 'gamespaceSession',
  description:
    "The gamespace play page: before/during/after recomputed every second from the stored state; Start (launch) when before or over, End and Reset, Deploy and Destroy during play, each confirmed; an active gamespace's channel is listened to and each GameEvent replaces the state; the quiz and the invitation link.",
  context: ({ input }) => ({
    loadId: input.id,
    now: input.now,
    origin: input.origin,
    game: null,
    action: null,
    errors: [],
    channelId: null,
    quizId: null,
    inviteLink: null,
  }),
  invoke: { id: 'clock', src: 'clock' },
  on: {
    'clock.ticked': { actions: assign({ now: ({ event }) => event.now }) },
    'game.updated': { actions: 'replaceGame' },
    'quiz.graded': { actions: 'replaceGame' },
    'session.errorDismissed': {
      actions: assign({
        errors: ({ context, event }) => context.errors.filter((_, i) => i !== event.index),
      }),
    },
  },
  type: 'parallel',
  states: {
    window: {
      initial: 'before',
      states: {
        before: {
          always: [
            { guard: 'isDuring', target: 'during' },
            { guard: 'isAfter', target: 'after' },
          ],
        },
        during: {
          always: [
            { guard: 'isBefore', target: 'before' },
            { guard: 'isAfter', target: 'after' },
          ],
        },
        after: {
          always: [
            { guard: 'isBefore', target: 'before' },
            { guard: 'isDuring', target: 'during' },
          ],
        },
      },
    },
    activity: {
      initial: 'loading',
      states: {
        loading: {
          tags: ['busy'],
          invoke: {
            id: 'loadGamespace',
            src: 'loadGamespace',
            input: ({ context }) => ({ id: context.loadId }),
            onDone: { target: 'idle', actions: assign({ game: ({ event }) => event.output }) },
            // A load failure falls back to nothing known (spec §8): a launch is still offered.
            onError: { target: 'idle', actions: assign({ game: null }) },
          },
        },
        idle: {
          on: {
            'session.startRequested': {
              guard: 'canStart',
              target: 'confirming',
              actions: { type: 'chooseAction', params: { action: 'start' } },
            },
            'session.endRequested': {
              guard: 'isInPlay',
              target: 'confirming',
              actions: { type: 'chooseAction', params: { action: 'end' } },
            },
            'session.resetRequested': {
              guard: 'isInPlay',
              target: 'confirming',
              actions: { type: 'chooseAction', params: { action: 'reset' } },
            },
            'session.deployRequested': {
              guard: 'canDeploy',
              target: 'confirming',
              actions: { type: 'chooseAction', params: { action: 'deploy' } },
            },
            'session.destroyRequested': {
              guard: 'canDestroy',
              target: 'confirming',
              actions: { type: 'chooseAction', params: { action: 'destroy' } },
            },
          },
        },
        confirming: {
          on: {
            'session.actionConfirmed': 'running',
            'session.actionCancelled': { target: 'idle', actions: assign({ action: null }) },
          },
        },
        running: {
          tags: ['busy'],
          initial: 'choosing',
          exit: assign({ action: null }),
          states: {
            choosing: {
              always: [
                { guard: ({ context }) => context.action === 'start', target: 'launching' },
                { guard: ({ context }) => context.action === 'reset', target: 'resetting' },
                { target: 'changing' },
              ],
            },
            launching: {
              tags: ['launching'],
              invoke: {
                id: 'registerGamespace',
                src: 'registerGamespace',
                input: ({ context }) => ({
                  ...PLAY_PAGE_LAUNCH,
                  resourceId: context.game?.workspaceId ?? context.loadId,
                }),
                onDone: {
                  target: '#gamespaceSession.activity.idle',
                  actions: assign({ game: ({ event }) => event.output }),
                },
                onError: { target: '#gamespaceSession.activity.idle', actions: 'recordError' },
              },
            },
            changing: {
              invoke: {
                id: 'changeGamespace',
                src: 'changeGamespace',
                input: ({ context }) => ({
                  id: context.game?.id ?? '',
                  action:
                    context.action === 'deploy'
                      ? ('start' as const)
                      : context.action === 'destroy'
                        ? ('stop' as const)
                        : ('complete' as const),
                }),
                onDone: {
                  target: '#gamespaceSession.activity.idle',
                  actions: assign({ game: ({ event }) => event.output }),
                },
                onError: { target: '#gamespaceSession.activity.idle', actions: 'recordError' },
              },
            },
            // The machines go with the gamespace; the workspace then offers a new launch.
            resetting: {
              invoke: {
                id: 'deleteGamespace',
                src: 'deleteGamespace',
                input: ({ context }) => ({ id: context.game?.id ?? '' }),
                onDone: {
                  target: '#gamespaceSession.activity.loading',
                  actions: assign({
                    loadId: ({ context }) => context.game?.workspaceId ?? context.loadId,
                    game: null,
                  }),
                },
                onError: { target: '#gamespaceSession.activity.idle', actions: 'recordError' },
              },
            },
          },
        },
      },
    },
    channel: {
      initial: 'off',
      states: {
        off: { always: { guard: 'isActive', target: 'listening' } },
        listening: {
          entry: assign({ channelId: ({ context }) => context.game?.id ?? null }),
          exit: assign({ channelId: null }),
          always: [
            { guard: 'isInactive', target: 'off' },
            // Another gamespace (a new launch): leave the old channel, join the new one.
            { guard: 'hasChannelChanged', target: 'listening', reenter: true },
          ],
          invoke: [
            {
              id: 'listenToChannel',
              src: 'listenToChannel',
              input: ({ context }) => ({ channelId: context.game?.id ?? '' }),
            },
            {
              id: 'gameEvents',
              src: 'gameEvents',
              input: ({ context }) => ({ gamespaceId: context.game?.id ?? '' }),
            },
          ],
        },
      },
    },
    quiz: {
      initial: 'hidden',
      states: {
        hidden: { always: { guard: 'isStarted', target: 'shown' } },
        shown: {
          entry: assign({ quizId: ({ context }) => context.game?.id ?? null }),
          exit: assign({ quizId: null }),
          always: [
            { guard: 'isNotStarted', target: 'hidden' },
            // Another gamespace has other questions.
            { guard: 'hasQuizChanged', target: 'shown', reenter: true },
          ],
          invoke: {
            id: 'questionSet',
            src: 'questionSet',
            input: ({ context, self }) => ({
              gamespaceId: context.game?.id ?? '',
              playable: isPlayable(context.game, context.now),
              reportTo: self,
            }),
          },
          on: {
            'clock.ticked': {
              actions: [assign({ now: ({ event }) => event.now }), 'tellQuizPlayability'],
            },
            'game.updated': {
              actions: [
                'replaceGame',
                'tellQuizPlayability',
                sendTo('questionSet', { type: 'quiz.refreshRequested' }),
              ],
            },
            'quiz.graded': { actions: ['replaceGame', 'tellQuizPlayability'] },
          },
        },
      },
    },
    invite: {
      initial: 'idle',
      states: {
        idle: { on: { 'session.inviteRequested': { guard: 'canInvite', target: 'inviting' } } },
        inviting: {
          invoke: {
            id: 'inviteToGamespace',
            src: 'inviteToGamespace',
            input: ({ context }) => ({ id: context.game?.id ?? '' }),
            onDone: {
              target: 'copying',
              actions: assign({
                inviteLink: ({ context, event }) =>
                  context.game
                    ? invitationLink(context.origin, context.game, event.output.code)
                    : null,
              }),
            },
            onError: { target: 'idle', actions: 'recordError' },
          },
        },
        copying: {
          invoke: {
            id: 'copyToClipboard',
            src: 'copyToClipboard',
            input: ({ context }) => ({ text: context.inviteLink ?? '' }),
            onDone: 'copied',
            // The link stays on the page to copy by hand.
            onError: 'idle',
          },
        },
        copied: { tags: ['copied'], after: { inviteCopied: 'idle' } },
      },
    },
  },
});

export type GamespaceSessionActorRef = ActorRefFrom<typeof gamespaceSessionMachine>;
export type GamespaceSessionSnapshot = SnapshotFrom<typeof gamespaceSessionMachine>;
