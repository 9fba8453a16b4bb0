import { assign, emit, fromPromise, setup, type ActorRefFrom, type SnapshotFrom } from 'xstate';
import type { GameState } from '../api/play';

// The play page learns of changes made elsewhere (a grader agent's grade, the janitor ending the
// game, another player's Deploy) from GameEvents of the hub. The launch page cannot use the hub:
// its ticket comes from GET user/ticket, which takes a bearer token, and the launch page has only
// the console cookie. It asks for the game state this often instead.

/** How often the launch page reads the game state (the reference's play page: hub events). */
export const POLL_INTERVAL_MS = 5_000;

export interface GameStatePollInput {
  gamespaceId: string;
}

export interface GameStatePollContext {
  gamespaceId: string;
  /** The last state read, serialized: an unchanged state is not reported again. */
  last: string | null;
}

/** Reported to whoever listens (`actor.on('game.polled', ...)`): the state changed. */
export type GameStatePollEmitted = { type: 'game.polled'; state: GameState };

const notProvided = (name: string): Error =>
  new Error(`gameStatePollMachine: '${name}' is provided by the app (src/app)`);

export const gameStatePollMachine = setup({
  types: {
    input: {} as GameStatePollInput,
    context: {} as GameStatePollContext,
    emitted: {} as GameStatePollEmitted,
  },
  actors: {
    /** GET gamespace/{id}. */
    loadGamespace: fromPromise<GameState, { id: string }>(() => {
      throw notProvided('loadGamespace');
    }),
  },
  guards: {
    hasChanged: ({ context }, { state }: { state: GameState }) =>
      JSON.stringify(state) !== context.last,
  },
  delays: { pollInterval: POLL_INTERVAL_MS },
}).createMachine({
  id: 'gameStatePoll',
  description:
    'Reads the game state every POLL_INTERVAL_MS and emits it when it changed; a failed read is tried again at the next interval.',
  context: ({ input }) => ({ gamespaceId: input.gamespaceId, last: null }),
  // Whoever starts it holds the state of now: the first read is one interval away.
  initial: 'waiting',
  states: {
    waiting: { after: { pollInterval: 'loading' } },
    loading: {
      invoke: {
        id: 'loadGamespace',
        src: 'loadGamespace',
        input: ({ context }) => ({ id: context.gamespaceId }),
        onDone: [
          {
            guard: { type: 'hasChanged', params: ({ event }) => ({ state: event.output }) },
            target: 'waiting',
            actions: [
              assign({ last: ({ event }) => JSON.stringify(event.output) }),
              emit(({ event }) => ({ type: 'game.polled' as const, state: event.output })),
            ],
          },
          { target: 'waiting' },
        ],
        onError: 'waiting',
      },
    },
  },
});

export type GameStatePollActorRef = ActorRefFrom<typeof gameStatePollMachine>;
export type GameStatePollSnapshot = SnapshotFrom<typeof gameStatePollMachine>;
