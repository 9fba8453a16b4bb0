import {
  assertEvent,
  assign,
  fromPromise,
  not,
  sendTo,
  setup,
  type ActorRef,
  type ActorRefFrom,
  type Snapshot,
  type SnapshotFrom,
} from 'xstate';
import type { GameState, GameVm } from '../api/play';
import {
  hasGamespace,
  invitationLink,
  isPlayable,
  isStarted,
  mayManage,
  sessionOf,
} from './gamespaceRules';
import { gameVmsMachine } from './gameVmsMachine';
import { questionSetMachine, type QuestionSetReport } from './questionSetMachine';

/** 'copied' shows this long after the invitation link is copied (spec §4, §9). */
export const INVITE_COPIED_MS = 3_000;

/** What the session tells the gamespace's parts: the time, and each new state and its cause. */
export type GamespacePlayEvent =
  | { type: 'clock.ticked'; now: number }
  /** A GameEvent: the quiz loads its progress again. */
  | { type: 'game.updated'; state: GameState }
  | { type: 'quiz.graded'; state: GameState }
  /** An action of the page (end, deploy, destroy) changed the gamespace. */
  | { type: 'game.changed'; state: GameState }
  | { type: 'session.inviteRequested' };

/**
 * What the gamespace's parts tell the session: the quiz its grades (the session keeps the state)
 * and the invitation its failure (the session lists it).
 */
export type GamespacePlayReport = QuestionSetReport | { type: 'invite.failed'; error: unknown };

export interface GamespacePlayInput {
  game: GameState;
  now: number;
  /** The page's origin, for the invitation link. */
  origin: string;
  /** Whether the game's machines get controllers during play (the play page, not the launch page). */
  controlsMachines: boolean;
  /** The session, told what the quiz grades and what the invitation could not do. */
  parentRef: ActorRef<Snapshot<unknown>, GamespacePlayReport>;
}

export interface GamespacePlayContext extends GamespacePlayInput {
  /** The machines the controllers were last told of, while they run. */
  controlledVms: GameVm[] | null;
  inviteLink: string | null;
}

const notProvided = (name: string): Error =>
  new Error(`gamespacePlayMachine: '${name}' is provided by the app (src/app)`);

/**
 * The parts of the play page that belong to one gamespace (spec §2 Gamespace play page, §4): the
 * session runs one for as long as it shows that gamespace, and tells it the time and each new
 * state. Regions:
 * - `quiz`: the question sets of a started gamespace, told whether the game is playable on every
 *   tick and new state, and refreshed by each GameEvent.
 * - `machines`: during play, the `gameVms` child runs a controller for each of the game's
 *   machines (on the play page only: see `controlsMachines`).
 * - `invite`: generates a code, copies the link, and 'copied' shows for 3 s.
 */
export const gamespacePlayMachine = setup({
  types: {
    input: {} as GamespacePlayInput,
    context: {} as GamespacePlayContext,
    events: {} as GamespacePlayEvent,
    children: {} as {
      questionSet: 'questionSet';
      gameVms: 'gameVms';
      inviteToGamespace: 'inviteToGamespace';
      copyToClipboard: 'copyToClipboard';
    },
    // 'copied': the invitation link was just copied.
    tags: {} as 'copied',
  },
  actors: {
    questionSet: questionSetMachine,
    /** The machines' controllers; provide its vmController with the play page's effects. */
    gameVms: gameVmsMachine,
    /** POST gamespace/{id}/invite: the code. */
    inviteToGamespace: fromPromise<{ code: string }, { id: string }>(() => {
      throw notProvided('inviteToGamespace');
    }),
    copyToClipboard: fromPromise<void, { text: string }>(() => {
      throw notProvided('copyToClipboard');
    }),
  },
  guards: {
    isStarted: ({ context }) => isStarted(context.game),
    /** The game's machines are controlled during play, on a page that controls them. */
    showsMachines: ({ context }) =>
      context.controlsMachines &&
      hasGamespace(context.game) &&
      isPlayable(context.game, context.now),
    /** Every state replaces `vms`: the controllers are told of each one. */
    haveVmsChanged: ({ context }) => context.controlledVms !== (context.game.vms ?? null),
    /** Inviting is for those who may manage the game, while it is not over. */
    canInvite: ({ context }) =>
      hasGamespace(context.game) && mayManage(context.game) && !sessionOf(context).isOver,
  },
  actions: {
    replaceGame: assign({
      game: ({ event }) => {
        assertEvent(event, ['game.updated', 'quiz.graded', 'game.changed']);
        return event.state;
      },
    }),
    tellQuizPlayability: sendTo('questionSet', ({ context }) => ({
      type: 'quiz.playabilityChanged' as const,
      playable: isPlayable(context.game, context.now),
    })),
    tellVms: sendTo('gameVms', ({ context }) => ({
      type: 'game.vmsChanged' as const,
      vms: context.game.vms ?? [],
    })),
    reportInviteFailure: sendTo(
      ({ context }) => context.parentRef,
      (_, { error }: { error: unknown }) => ({ type: 'invite.failed' as const, error }),
    ),
  },
  delays: { inviteCopied: INVITE_COPIED_MS },
}).createMachine({
  id: 'gamespacePlay',
  description:
    "One gamespace of the play page: its quiz once started, its machines' controllers during play (on the play page), and its invitation link.",
  context: ({ input }) => ({ ...input, controlledVms: null, inviteLink: null }),
  on: {
    'clock.ticked': { actions: assign({ now: ({ event }) => event.now }) },
    'game.updated': { actions: 'replaceGame' },
    'quiz.graded': { actions: 'replaceGame' },
    'game.changed': { actions: 'replaceGame' },
  },
  type: 'parallel',
  states: {
    quiz: {
      initial: 'hidden',
      states: {
        hidden: { always: { guard: 'isStarted', target: 'shown' } },
        shown: {
          always: { guard: not('isStarted'), target: 'hidden' },
          invoke: {
            id: 'questionSet',
            src: 'questionSet',
            input: ({ context }) => ({
              gamespaceId: context.game.id ?? '',
              playable: isPlayable(context.game, context.now),
              // The session keeps the state a grade answers with, and tells this play of it.
              reportTo: context.parentRef,
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
            // End (or any action of the page) may end play: Submit goes with the answer, not a
            // tick later.
            'game.changed': { actions: ['replaceGame', 'tellQuizPlayability'] },
          },
        },
      },
    },
    machines: {
      initial: 'hidden',
      states: {
        hidden: { always: { guard: 'showsMachines', target: 'shown' } },
        shown: {
          entry: assign({ controlledVms: ({ context }) => context.game.vms ?? null }),
          exit: assign({ controlledVms: null }),
          always: [
            { guard: not('showsMachines'), target: 'hidden' },
            {
              guard: 'haveVmsChanged',
              actions: [
                assign({ controlledVms: ({ context }) => context.game.vms ?? null }),
                'tellVms',
              ],
            },
          ],
          invoke: {
            id: 'gameVms',
            src: 'gameVms',
            input: ({ context }) => ({
              gamespaceId: context.game.id ?? '',
              vms: context.game.vms ?? [],
            }),
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
            input: ({ context }) => ({ id: context.game.id ?? '' }),
            onDone: {
              target: 'copying',
              actions: assign({
                inviteLink: ({ context, event }) =>
                  invitationLink(context.origin, context.game, event.output.code),
              }),
            },
            onError: {
              target: 'idle',
              actions: {
                type: 'reportInviteFailure',
                params: ({ event }) => ({ error: event.error }),
              },
            },
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

export type GamespacePlayActorRef = ActorRefFrom<typeof gamespacePlayMachine>;
export type GamespacePlaySnapshot = SnapshotFrom<typeof gamespacePlayMachine>;
