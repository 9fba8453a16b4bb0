import { fromPromise, setup, type ActorRefFrom, type SnapshotFrom } from 'xstate';

/** The reference console pings GET user/ping this often while it is open (wire reference §1.7). */
export const PING_INTERVAL_MS = 60_000;

/**
 * The console cookie's heartbeat: GET user/ping every PING_INTERVAL_MS, as the reference console
 * does, whatever the noVNC session is doing. The console invokes it once signed in, so it stops
 * with the page; a failed ping is not retried sooner, the next one comes on schedule.
 */
export const consoleHeartbeatMachine = setup({
  actors: {
    /** GET user/ping. */
    ping: fromPromise<void, void>(() => {
      throw new Error("consoleHeartbeatMachine: 'ping' is provided by the app (src/app)");
    }),
  },
  delays: {
    pingInterval: PING_INTERVAL_MS,
  },
}).createMachine({
  id: 'consoleHeartbeat',
  description:
    'Keeps the console cookie alive: pings the server every minute while the console page is open, failed pings included.',
  initial: 'waiting',
  states: {
    waiting: { after: { pingInterval: 'pinging' } },
    pinging: {
      invoke: { id: 'ping', src: 'ping', onDone: 'waiting', onError: 'waiting' },
    },
  },
});

export type ConsoleHeartbeatActorRef = ActorRefFrom<typeof consoleHeartbeatMachine>;
export type ConsoleHeartbeatSnapshot = SnapshotFrom<typeof consoleHeartbeatMachine>;
