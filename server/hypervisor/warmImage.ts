import { assign, createActor, setup, type ActorRefFrom, type SnapshotFrom } from 'xstate';

// A warm image's build (qemu/warm.ts): queued behind other builds, its machine booting until the
// guest agent answers, its state being saved, then ready; or failed, with why. The machine has no
// effects: the driver does the work and sends it what happened, with the times it happened at.

export interface WarmImageInput {
  /** The warm image's name (qemu/warm.ts warmKeyOf). */
  key: string;
  /** When the build was asked for, epoch milliseconds. */
  requested: number;
}

export interface WarmImageContext extends WarmImageInput {
  bootStarted: number | null;
  booted: number | null;
  saved: number | null;
  error: string | null;
}

export type WarmImageEvent =
  | { type: 'warm.booting'; at: number }
  | { type: 'warm.booted'; at: number }
  | { type: 'warm.saved'; at: number }
  | { type: 'warm.failed'; error: string };

export const warmImageMachine = setup({
  types: {
    input: {} as WarmImageInput,
    context: {} as WarmImageContext,
    events: {} as WarmImageEvent,
  },
}).createMachine({
  id: 'warmImage',
  description:
    "A warm image's build: queued, its machine booting until the guest agent answers, its memory and disks saved; it ends ready or failed.",
  context: ({ input }) => ({ ...input, bootStarted: null, booted: null, saved: null, error: null }),
  on: {
    'warm.failed': { target: '.failed', actions: assign({ error: ({ event }) => event.error }) },
  },
  initial: 'queued',
  states: {
    queued: {
      on: {
        'warm.booting': {
          target: 'booting',
          actions: assign({ bootStarted: ({ event }) => event.at }),
        },
      },
    },
    booting: {
      on: {
        'warm.booted': { target: 'saving', actions: assign({ booted: ({ event }) => event.at }) },
      },
    },
    saving: {
      on: {
        'warm.saved': { target: 'ready', actions: assign({ saved: ({ event }) => event.at }) },
      },
    },
    /** Saved: machines of its template are restored from it from now on. */
    ready: { type: 'final' },
    /** Not built; its machines boot cold, and the build is tried again later. */
    failed: { type: 'final' },
  },
});

export type WarmImageActorRef = ActorRefFrom<typeof warmImageMachine>;
export type WarmImageSnapshot = SnapshotFrom<typeof warmImageMachine>;

export const startWarmImage = (input: WarmImageInput): WarmImageActorRef =>
  createActor(warmImageMachine, { input }).start();
