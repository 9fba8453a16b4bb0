import { assign, fromPromise, setup, type ActorRefFrom, type SnapshotFrom } from 'xstate';
import type { GamespaceChange, GameState, LaunchSettings } from '../api/play';
import { EXTENSION_MINUTES } from '../domain/gameLength';

/** Every action of the play page asks first (spec §5). */
export type SessionAction = 'start' | 'end' | 'reset' | 'deploy' | 'destroy' | 'extend';

/** What Extend adds to a game's time (the server lets it reach one game length from now). */
export { EXTENSION_MINUTES };
const EXTENSION_MS = EXTENSION_MINUTES * 60_000;

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

export interface GamespaceActionInput {
  action: SessionAction;
  /** The gamespace acted on; a launch registers one of its workspace (or of `loadId`). */
  game: GameState | null;
  /** What the page loaded: a workspace's id when no gamespace is shown. */
  loadId: string;
}

/**
 * What the action leaves: the gamespace as the server now shows it, or, after a reset, the id to
 * load (the workspace: its gamespace is gone).
 */
export type GamespaceActionOutcome =
  { type: 'changed'; game: GameState } | { type: 'reset'; loadId: string };

export interface GamespaceActionContext extends GamespaceActionInput {
  outcome: GamespaceActionOutcome | null;
}

const notProvided = (name: string): Error =>
  new Error(`gamespaceActionMachine: '${name}' is provided by the app (src/app)`);

/**
 * The change each action asks for: deploy starts the machines, destroy stops them, end
 * completes, extend moves the expiry on by EXTENSION_MINUTES.
 */
const changeOf = (action: SessionAction, game: GameState | null): GamespaceChange => {
  const id = game?.id ?? '';
  if (action === 'extend') {
    const expiry = Date.parse(game?.expirationTime ?? '');
    return { id, action, expirationTime: new Date(expiry + EXTENSION_MS).toISOString() };
  }
  return { id, action: action === 'deploy' ? 'start' : action === 'destroy' ? 'stop' : 'complete' };
};

/**
 * One confirmed action of the play page, from its call to the server's answer (spec §4 Server
 * actions): start registers a gamespace (POST gamespace), reset deletes it, end, deploy and
 * destroy change it (POST gamespace/{id}/complete, /start, /stop), extend moves its expiry on
 * (PUT gamespace). Its output is the outcome; a
 * failed call fails it, with the call's error, so that the session lists the failure.
 */
export const gamespaceActionMachine = setup({
  types: {
    input: {} as GamespaceActionInput,
    context: {} as GamespaceActionContext,
    output: {} as GamespaceActionOutcome,
  },
  actors: {
    /** POST gamespace. */
    registerGamespace: fromPromise<GameState, LaunchSettings>(() => {
      throw notProvided('registerGamespace');
    }),
    /** POST gamespace/{id}/start, /stop or /complete. */
    changeGamespace: fromPromise<GameState, GamespaceChange>(() => {
      throw notProvided('changeGamespace');
    }),
    /** DELETE gamespace/{id}. */
    deleteGamespace: fromPromise<unknown, { id: string }>(() => {
      throw notProvided('deleteGamespace');
    }),
  },
  guards: {
    isLaunch: ({ context }) => context.action === 'start',
    isReset: ({ context }) => context.action === 'reset',
  },
}).createMachine({
  id: 'gamespaceAction',
  description:
    'One confirmed action of the play page: start registers a gamespace, reset deletes it, end, deploy, destroy and extend change it; its output is the new state (or the workspace to load after a reset), and a failure fails it.',
  context: ({ input }) => ({ ...input, outcome: null }),
  initial: 'choosing',
  states: {
    choosing: {
      always: [
        { guard: 'isLaunch', target: 'launching' },
        { guard: 'isReset', target: 'resetting' },
        { target: 'changing' },
      ],
    },
    launching: {
      invoke: {
        id: 'registerGamespace',
        src: 'registerGamespace',
        input: ({ context }) => ({
          ...PLAY_PAGE_LAUNCH,
          resourceId: context.game?.workspaceId ?? context.loadId,
        }),
        onDone: {
          target: 'done',
          actions: assign({ outcome: ({ event }) => ({ type: 'changed', game: event.output }) }),
        },
      },
    },
    changing: {
      invoke: {
        id: 'changeGamespace',
        src: 'changeGamespace',
        input: ({ context }) => changeOf(context.action, context.game),
        onDone: {
          target: 'done',
          actions: assign({ outcome: ({ event }) => ({ type: 'changed', game: event.output }) }),
        },
      },
    },
    // The machines go with the gamespace; the workspace then offers a new launch.
    resetting: {
      invoke: {
        id: 'deleteGamespace',
        src: 'deleteGamespace',
        input: ({ context }) => ({ id: context.game?.id ?? '' }),
        onDone: {
          target: 'done',
          actions: assign({
            outcome: ({ context }) => ({
              type: 'reset',
              loadId: context.game?.workspaceId ?? context.loadId,
            }),
          }),
        },
      },
    },
    done: { type: 'final' },
  },
  output: ({ context }) => context.outcome as GamespaceActionOutcome,
});

export type GamespaceActionActorRef = ActorRefFrom<typeof gamespaceActionMachine>;
export type GamespaceActionSnapshot = SnapshotFrom<typeof gamespaceActionMachine>;
