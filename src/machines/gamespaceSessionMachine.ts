import {
  assertEvent,
  assign,
  forwardTo,
  not,
  raise,
  sendTo,
  setup,
  type ActorRefFrom,
  type SnapshotFrom,
} from 'xstate';
import { errorMessage } from '../domain/text';
import type { GamespaceActionOutcome } from './gamespaceActionMachine';
import { withViewerRights } from './gamespaceRules';
import { gamespaceSessionActors } from './gamespaceSessionMachine.actors';
import { gamespaceSessionGuards } from './gamespaceSessionMachine.guards';
import type {
  GamespaceSessionContext,
  GamespaceSessionEvent,
  GamespaceSessionInput,
  SessionAction,
} from './gamespaceSessionMachine.types';

/** The window is recomputed from the stored state this often (spec §4, §9). */
export const STATE_REFRESH_MS = 1_000;
export type * from './gamespaceSessionMachine.types';

/** A request of the page's buttons, confirmed before it runs. */
const asks = <G extends string>(guard: G, action: SessionAction) =>
  ({ guard, target: 'confirming', actions: { type: 'chooseAction', params: { action } } }) as const;

/**
 * The gamespace play page (spec §2, §4). Regions:
 * - `window`: before, during or after, recomputed from the stored state on every tick.
 * - `activity`: loading, then idle (or notFound for an id the server does not know); each action (start = launch, end = complete, reset = delete,
 *   deploy = start, destroy = stop, extend = a later expiry) is confirmed, then runs as a `gamespaceAction` child whose
 *   outcome replaces the state and whose failure is listed.
 * - `gamespace`: while there is one, its hub channel is listened to while it is active (each
 *   GameEvent replaces the state), and its own parts (its quiz, its machines' controllers and its
 *   invitation link) run in a `gamespacePlay` child, told the time and every new state.
 */
export const gamespaceSessionMachine = setup({
  types: {
    input: {} as GamespaceSessionInput,
    context: {} as GamespaceSessionContext,
    events: {} as GamespaceSessionEvent,
    children: {} as { play: 'gamespacePlay'; clock: 'clock' },
    // 'busy': an action or the load is running.
    tags: {} as 'busy',
  },
  actors: gamespaceSessionActors,
  guards: gamespaceSessionGuards,
  actions: {
    chooseAction: assign((_, params: { action: SessionAction }) => ({ action: params.action })),
    setNow: assign({
      now: ({ event }) => {
        assertEvent(event, 'clock.ticked');
        return event.now;
      },
    }),
    replaceGame: assign({
      game: ({ context, event }) => {
        assertEvent(event, ['game.updated', 'quiz.graded']);
        return withViewerRights(context.game, event.state);
      },
    }),
    applyOutcome: assign(({ context }, outcome: GamespaceActionOutcome) =>
      outcome.type === 'reset'
        ? { loadId: outcome.loadId, game: null }
        : { game: withViewerRights(context.game, outcome.game) },
    ),
    /** The gamespace's parts hear of the state an action left (those of a new one start with it). */
    announceOutcome: raise(({ context }) => ({
      type: 'game.changed' as const,
      state: context.game ?? {},
    })),
    recordError: assign({
      errors: ({ context }, { error }: { error: unknown }) => [
        ...context.errors,
        errorMessage(error),
      ],
    }),
    forwardToPlay: forwardTo('play'),
    /** The play part hears of a new state as the page keeps it: with the viewer's rights. */
    tellPlayTheGame: sendTo('play', ({ context, event }) => {
      assertEvent(event, ['game.updated', 'quiz.graded']);
      return { type: event.type, state: context.game ?? event.state };
    }),
  },
}).createMachine({
  id: 'gamespaceSession',
  description:
    "The gamespace play page: before/during/after recomputed every second from the stored state; Start (launch) when before or over, End and Reset, Deploy and Destroy during play, Extend for its managers, each confirmed; an active gamespace's channel is listened to and each GameEvent replaces the state; the gamespace's quiz, machines and invitation run beside.",
  context: ({ input }) => ({
    loadId: input.id,
    now: input.now,
    origin: input.origin,
    controlsMachines: input.controlsMachines ?? false,
    game: null,
    action: null,
    errors: [],
    shownId: null,
  }),
  invoke: { id: 'clock', src: 'clock' },
  on: {
    'clock.ticked': { actions: 'setNow' },
    'game.updated': { actions: 'replaceGame' },
    'quiz.graded': { actions: 'replaceGame' },
    'session.errorDismissed': {
      actions: assign({
        errors: ({ context, event }) => context.errors.filter((_, i) => i !== event.index),
      }),
    },
    'invite.failed': {
      actions: { type: 'recordError', params: ({ event }) => ({ error: event.error }) },
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
            onError: [
              // No gamespace nor workspace has the id: there is nothing to start.
              {
                guard: { type: 'isNotFound', params: ({ event }) => ({ error: event.error }) },
                target: 'notFound',
              },
              // Another failure falls back to nothing known (spec §8): a launch is still offered.
              { target: 'idle', actions: assign({ game: null }) },
            ],
          },
        },
        notFound: {},
        idle: {
          on: {
            'session.startRequested': asks('canStart', 'start'),
            'session.endRequested': asks('canEnd', 'end'),
            'session.resetRequested': asks('isInPlay', 'reset'),
            'session.deployRequested': asks('canDeploy', 'deploy'),
            'session.destroyRequested': asks('canDestroy', 'destroy'),
            'session.extendRequested': asks('canExtend', 'extend'),
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
          exit: assign({ action: null }),
          invoke: {
            id: 'gamespaceAction',
            src: 'gamespaceAction',
            input: ({ context }) => ({
              action: context.action ?? 'end',
              game: context.game,
              loadId: context.loadId,
            }),
            onDone: [
              // The machines went with the gamespace; the workspace then offers a new launch.
              {
                guard: { type: 'isReset', params: ({ event }) => event.output },
                target: 'loading',
                actions: { type: 'applyOutcome', params: ({ event }) => event.output },
              },
              {
                target: 'idle',
                actions: [
                  { type: 'applyOutcome', params: ({ event }) => event.output },
                  'announceOutcome',
                  // A game the action started plays from the answer, not from the next tick.
                  sendTo('clock', { type: 'clock.syncRequested' }),
                ],
              },
            ],
            onError: {
              target: 'idle',
              actions: { type: 'recordError', params: ({ event }) => ({ error: event.error }) },
            },
          },
        },
      },
    },
    gamespace: {
      initial: 'none',
      states: {
        none: { always: { guard: 'hasGamespace', target: 'shown' } },
        shown: {
          entry: assign({ shownId: ({ context }) => context.game?.id ?? null }),
          exit: assign({ shownId: null }),
          always: [
            { guard: not('hasGamespace'), target: 'none' },
            // Another gamespace (a new launch): its own channel, quiz, machines and invitations.
            { guard: 'isAnotherGamespace', target: 'shown', reenter: true },
          ],
          invoke: {
            id: 'play',
            src: 'gamespacePlay',
            input: ({ context, self }) => ({
              game: context.game ?? {},
              now: context.now,
              origin: context.origin,
              controlsMachines: context.controlsMachines,
              parentRef: self,
            }),
          },
          on: {
            'clock.ticked': { actions: ['setNow', 'forwardToPlay'] },
            'game.updated': { actions: ['replaceGame', 'tellPlayTheGame'] },
            'quiz.graded': { actions: ['replaceGame', 'tellPlayTheGame'] },
            'game.changed': { actions: 'forwardToPlay' },
            'session.inviteRequested': { actions: 'forwardToPlay' },
          },
          initial: 'inactive',
          states: {
            inactive: { always: { guard: 'isActive', target: 'listening' } },
            /** The channel is listened to while the gamespace is active. */
            listening: {
              always: { guard: not('isActive'), target: 'inactive' },
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
      },
    },
  },
});

export type GamespaceSessionActorRef = ActorRefFrom<typeof gamespaceSessionMachine>;
export type GamespaceSessionSnapshot = SnapshotFrom<typeof gamespaceSessionMachine>;
