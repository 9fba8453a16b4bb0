import { assign, createActor, setup, type ActorRefFrom, type SnapshotFrom } from 'xstate';
import type { MachineTask } from './types';

// A machine's deploy, the same for every driver: it waits its turn (queued), gets its disks
// (copying for a copy or overlay of its own, cloning for a Proxmox linked clone), is configured,
// is started when its template says so, and ends running (deployed: on or off as configured),
// failed or cancelled. The drivers do the work and tell the machine what happened; the machine
// does nothing itself, so every path through it is a plain sequence of events a test can send.
// What a deploy shows on its machine while it runs (the reference task: name and progress) is
// derived from where it is, never set by hand: deployTaskOf below. A deploy that lives longer
// than a process (the sim's, stored as a row) is restored with deployMachine.resolveState.

export interface DeployInput {
  /** The task's id on the wire. */
  taskId: string;
  /** When the deploy began, epoch milliseconds: times come in, the machine reads no clock. */
  started: number;
}

export interface DeployContext extends DeployInput {
  /** How the disks come: a copy of its own or a linked clone; null while queued. */
  method: 'copy' | 'clone' | null;
  /** Deploys ahead of this one in its queue; null when no queue said. */
  ahead: number | null;
  /** 0..99: a deploy under way never reads as complete. */
  progress: number;
  /** Why a failed deploy failed. */
  error: string | null;
}

export type DeployEvent =
  | { type: 'deploy.queued'; ahead: number }
  | { type: 'deploy.copyStarted' }
  | { type: 'deploy.cloneStarted' }
  | { type: 'deploy.progressed'; percent: number }
  | { type: 'deploy.copied' }
  | { type: 'deploy.cloned' }
  /** Configured; `starts` when its template starts it now, else it is deployed (off). */
  | { type: 'deploy.configured'; starts: boolean }
  | { type: 'deploy.started' }
  | { type: 'deploy.failed'; error: string }
  | { type: 'deploy.cancelRequested' };

/** Progress as a deploy under way shows it: a whole number, never 100 before the deploy ends. */
export const clampProgress = (percent: number): number =>
  Math.max(0, Math.min(99, Math.round(percent)));

export const deployMachine = setup({
  types: {
    input: {} as DeployInput,
    context: {} as DeployContext,
    events: {} as DeployEvent,
  },
  guards: {
    isStarting: ({ event }) => event.type === 'deploy.configured' && event.starts,
  },
}).createMachine({
  id: 'deploy',
  description:
    "A machine's deploy: queued, its disks copied or cloned, configured, started when its template says so; it ends running, failed or cancelled.",
  context: ({ input }) => ({
    ...input,
    method: null,
    ahead: null,
    progress: 0,
    error: null,
  }),
  // Progress, a failure and a cancel are heard in every state a deploy is under way in; once it
  // is over (a final state) the actor hears nothing, so a late progress or step changes nothing.
  on: {
    'deploy.progressed': {
      actions: assign({ progress: ({ event }) => clampProgress(event.percent) }),
    },
    'deploy.failed': { target: '.failed', actions: assign({ error: ({ event }) => event.error }) },
    'deploy.cancelRequested': { target: '.cancelled' },
  },
  initial: 'queued',
  states: {
    queued: {
      on: {
        'deploy.queued': { actions: assign({ ahead: ({ event }) => Math.max(0, event.ahead) }) },
        'deploy.copyStarted': {
          target: 'copying',
          actions: assign({ method: 'copy', ahead: null }),
        },
        'deploy.cloneStarted': {
          target: 'cloning',
          actions: assign({ method: 'clone', ahead: null }),
        },
      },
    },
    copying: { on: { 'deploy.copied': 'configuring' } },
    cloning: { on: { 'deploy.cloned': 'configuring' } },
    configuring: {
      on: {
        // A machine its template leaves off is deployed once it is configured.
        'deploy.configured': [{ guard: 'isStarting', target: 'starting' }, { target: 'running' }],
      },
    },
    starting: { on: { 'deploy.started': 'running' } },
    /** Deployed, on or off as its template says; the machine's own state from here on. */
    running: { type: 'final' },
    failed: { type: 'final' },
    /** Cancelled by a delete: the driver removes what the deploy made so far. */
    cancelled: { type: 'final' },
  },
});

export type DeployActorRef = ActorRefFrom<typeof deployMachine>;
export type DeploySnapshot = SnapshotFrom<typeof deployMachine>;
export type DeployState = DeploySnapshot['value'];

/** A deploy actor, started: drivers send it what happened and read its snapshot. */
export const startDeploy = (input: DeployInput): DeployActorRef =>
  createActor(deployMachine, { input }).start();

/** Whether the deploy has ended (running, failed or cancelled). */
export const isOver = (snapshot: Pick<DeploySnapshot, 'status'>): boolean =>
  snapshot.status === 'done';

/**
 * The task a deploy shows on its machine, null once it has ended running or failed. The names are
 * the reference's: `deploying` (a copy, or not yet under way), `queued (N ahead)` while a queue
 * holds it, and `cloning` for a linked clone, through its configuring and starting. A cancelled
 * deploy keeps its task: its machine shows it until the driver has removed what it made and
 * dropped the deploy.
 */
export function deployTaskOf({
  value,
  context,
}: {
  value: DeployState;
  context: DeployContext;
}): MachineTask | null {
  if (value === 'running' || value === 'failed') return null;
  const name =
    context.method === 'clone'
      ? 'cloning'
      : context.ahead
        ? `queued (${context.ahead} ahead)`
        : 'deploying';
  return { id: context.taskId, name, progress: context.progress, started: context.started };
}
