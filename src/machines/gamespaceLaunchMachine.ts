import { assign, fromPromise, setup, type ActorRefFrom, type SnapshotFrom } from 'xstate';
import type { GameState, LaunchSettings } from '../api/play';
import { errorMessage } from '../domain/text';

/** The launch settings a workspace's Play tab edits (spec §3). */
export type LaunchOptions = Omit<LaunchSettings, 'resourceId'>;

/**
 * Max minutes 0 asks for the longest game the server allows (domain/gameLength): the workspace's
 * duration unless the account sets its own cap. The spec's 60 was lowered to a shorter workspace
 * duration at launch, with a warning, before the author had chosen anything.
 */
export const PLAY_TAB_LAUNCH: LaunchOptions = {
  variant: 0,
  maxAttempts: 3,
  maxMinutes: 0,
  points: 100,
  allowReset: true,
  allowPreview: false,
  startGamespace: true,
};

export type NumericLaunchOption = 'variant' | 'maxAttempts' | 'maxMinutes' | 'points';
export type FlagLaunchOption = 'allowReset' | 'allowPreview' | 'startGamespace';

export type GamespaceLaunchEvent =
  | { type: 'launch.numberChanged'; option: NumericLaunchOption; value: number }
  | { type: 'launch.flagChanged'; option: FlagLaunchOption; value: boolean }
  | { type: 'launch.requested' };

export interface GamespaceLaunchInput {
  workspaceId: string;
  /** The signed-in account's cap on a game's length (gamespaceMaxMinutes); 0 or missing: none. */
  accountMaxMinutes?: number;
}

export interface GamespaceLaunchContext {
  workspaceId: string;
  /** With the workspace's duration, what the server lowers Max minutes to (domain/gameLength). */
  accountMaxMinutes: number;
  options: LaunchOptions;
  error: string | null;
}

/**
 * The Play tab (spec §2 Workspace editor): launch settings with their defaults, and Launch, which
 * registers a gamespace of the workspace and opens its play page; a failure is shown.
 */
export const gamespaceLaunchMachine = setup({
  types: {
    input: {} as GamespaceLaunchInput,
    context: {} as GamespaceLaunchContext,
    events: {} as GamespaceLaunchEvent,
  },
  actors: {
    /** POST gamespace. */
    registerGamespace: fromPromise<GameState, LaunchSettings>(() => {
      throw new Error(
        "gamespaceLaunchMachine: 'registerGamespace' is provided by the app (src/app)",
      );
    }),
  },
  actions: {
    /** Opens /mojo/{gamespaceId}/{slug}. */
    openGamespace: (_, _params: { id: string; slug: string }) => {
      throw new Error("gamespaceLaunchMachine: 'openGamespace' is provided by the app (src/app)");
    },
  },
  guards: {
    // A negative count or an unreadable number is not sent.
    isValidNumber: ({ event }) =>
      event.type === 'launch.numberChanged' && Number.isInteger(event.value) && event.value >= 0,
  },
}).createMachine({
  id: 'gamespaceLaunch',
  description:
    'The Play tab: edits the launch settings (variant 0, 3 attempts, the longest game allowed, 100 points, reset allowed, no preview, started); Launch registers and opens the play page, a failure is shown.',
  context: ({ input }) => ({
    workspaceId: input.workspaceId,
    accountMaxMinutes: input.accountMaxMinutes ?? 0,
    options: PLAY_TAB_LAUNCH,
    error: null,
  }),
  initial: 'editing',
  states: {
    editing: {
      on: {
        'launch.numberChanged': {
          guard: 'isValidNumber',
          actions: assign({
            options: ({ context, event }) => ({ ...context.options, [event.option]: event.value }),
          }),
        },
        'launch.flagChanged': {
          actions: assign({
            options: ({ context, event }) => ({ ...context.options, [event.option]: event.value }),
          }),
        },
        'launch.requested': 'launching',
      },
    },
    launching: {
      entry: assign({ error: null }),
      invoke: {
        id: 'registerGamespace',
        src: 'registerGamespace',
        input: ({ context }) => ({ ...context.options, resourceId: context.workspaceId }),
        onDone: {
          target: 'editing',
          actions: {
            type: 'openGamespace',
            params: ({ event }) => ({
              id: event.output.id ?? '',
              slug: event.output.slug || 'game',
            }),
          },
        },
        onError: {
          target: 'editing',
          actions: assign({ error: ({ event }) => errorMessage(event.error) }),
        },
      },
    },
  },
});

export type GamespaceLaunchActorRef = ActorRefFrom<typeof gamespaceLaunchMachine>;
export type GamespaceLaunchSnapshot = SnapshotFrom<typeof gamespaceLaunchMachine>;
