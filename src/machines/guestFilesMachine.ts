import {
  assign,
  fromCallback,
  fromPromise,
  setup,
  type ActorRefFrom,
  type SnapshotFrom,
} from 'xstate';
import type { GuestFileAccess, GuestFilePut } from '../api/guestFiles';
import { guestFileRefusal } from '../domain/guestFiles';
import { errorMessage } from '../domain/text';

/** One file dropped or picked on the console, from the queue to its end. */
export interface GuestFileItem {
  /** `file-{n}`: a file chosen twice is two items. */
  id: string;
  name: string;
  size: number;
  status: 'queued' | 'sending' | 'done' | 'failed';
  /** 0..100 of the file sent to the server. */
  percent: number;
  /** Where the file is inside the machine, once done. */
  path: string | null;
  /** Why it failed: the server's message, or the limit before sending. */
  error: string | null;
}

/** What the put effect reports while it sends the current file. */
export type GuestFileProgressEvent =
  | { type: 'file.progressed'; percent: number }
  | { type: 'file.put'; put: GuestFilePut }
  | { type: 'file.failed'; error: unknown };

export type GuestFilesEvent =
  /** Files dropped on the console or picked with its button, in that order. */
  | { type: 'files.chosen'; files: File[] }
  /** Takes the ended files off the list. */
  | { type: 'files.clearRequested' }
  | GuestFileProgressEvent;

export interface GuestFilesInput {
  vmId: string;
}

export interface GuestFilesContext {
  vmId: string;
  /** Whether the machine takes files, how and up to what size; null until known. */
  access: GuestFileAccess | null;
  /** Why the machine's answer could not be had. */
  accessError: string | null;
  items: GuestFileItem[];
  /** The files of the queued items, by item id (File objects stay out of the items). */
  files: Record<string, File>;
  nextNumber: number;
}

const clampPercent = (n: unknown): number =>
  typeof n === 'number' && Number.isFinite(n) ? Math.max(0, Math.min(100, Math.round(n))) : 0;

const sendingId = (context: GuestFilesContext) =>
  context.items.find((i) => i.status === 'sending')?.id ?? null;

const updated = (
  context: GuestFilesContext,
  id: string | null,
  change: Partial<GuestFileItem>,
): GuestFileItem[] => context.items.map((i) => (i.id === id ? { ...i, ...change } : i));

/**
 * Files put into a machine from its console: asks whether the machine takes files, then sends
 * the files dropped or picked one after the other, each with its progress, ending done (with
 * where it is inside the machine) or failed (with the server's message). A file over the limit
 * is refused before it is sent.
 */
export const guestFilesMachine = setup({
  types: {
    input: {} as GuestFilesInput,
    context: {} as GuestFilesContext,
    events: {} as GuestFilesEvent,
    // 'busy': a file is being sent or waits its turn.
    tags: {} as 'busy',
  },
  actors: {
    /** GET vm/{id}/files. */
    loadAccess: fromPromise<GuestFileAccess, { vmId: string }>(() => {
      throw new Error("guestFilesMachine: 'loadAccess' is provided by the app (src/app)");
    }),
    /** POST vm/{id}/files with the file's progress; stopping it aborts the request. */
    sendFile: fromCallback<GuestFilesEvent, { vmId: string; file: File }>(() => {
      throw new Error("guestFilesMachine: 'sendFile' is provided by the app (src/app)");
    }),
  },
  actions: {
    /** Queues the chosen files; those over the limit fail at once, unsent. */
    addFiles: assign(({ context, event }) => {
      if (event.type !== 'files.chosen') return {};
      const items = [...context.items];
      const files = { ...context.files };
      let n = context.nextNumber;
      for (const file of event.files) {
        const id = `file-${n++}`;
        const refusal = guestFileRefusal(file.size);
        items.push({
          id,
          name: file.name,
          size: file.size,
          status: refusal ? 'failed' : 'queued',
          percent: 0,
          path: null,
          error: refusal,
        });
        if (!refusal) files[id] = file;
      }
      return { items, files, nextNumber: n };
    }),
    startNext: assign(({ context }) => {
      const next = context.items.find((i) => i.status === 'queued');
      return next ? { items: updated(context, next.id, { status: 'sending' }) } : {};
    }),
    /** The current file's end: its File is let go. */
    endCurrent: assign(({ context }, change: Partial<GuestFileItem>) => {
      const id = sendingId(context);
      const files = { ...context.files };
      if (id) delete files[id];
      return { items: updated(context, id, change), files };
    }),
  },
  guards: {
    hasQueued: ({ context }) => context.items.some((i) => i.status === 'queued'),
  },
}).createMachine({
  id: 'guestFiles',
  description:
    "Files put into a machine from its console: asks whether the machine takes files, then sends the dropped or picked files one at a time with their progress; each ends done with its path in the machine or failed with the server's message; files over the limit fail unsent.",
  context: ({ input }) => ({
    vmId: input.vmId,
    access: null,
    accessError: null,
    items: [],
    files: {},
    nextNumber: 1,
  }),
  on: {
    'files.clearRequested': {
      actions: assign({
        items: ({ context }) =>
          context.items.filter((i) => i.status === 'queued' || i.status === 'sending'),
      }),
    },
  },
  initial: 'loading',
  states: {
    loading: {
      invoke: {
        src: 'loadAccess',
        input: ({ context }) => ({ vmId: context.vmId }),
        onDone: {
          target: 'idle',
          actions: assign({ access: ({ event }) => event.output, accessError: null }),
        },
        onError: {
          target: 'idle',
          actions: assign({ accessError: ({ event }) => errorMessage(event.error) }),
        },
      },
    },
    idle: {
      always: { guard: 'hasQueued', target: 'sending' },
      on: { 'files.chosen': { actions: 'addFiles', target: 'idle', reenter: true } },
    },
    sending: {
      tags: ['busy'],
      entry: 'startNext',
      invoke: {
        src: 'sendFile',
        input: ({ context }) => {
          const id = sendingId(context);
          return { vmId: context.vmId, file: context.files[id ?? ''] as File };
        },
      },
      on: {
        'files.chosen': { actions: 'addFiles' },
        'file.progressed': {
          actions: assign({
            items: ({ context, event }) =>
              updated(context, sendingId(context), { percent: clampPercent(event.percent) }),
          }),
        },
        'file.put': {
          target: 'idle',
          actions: {
            type: 'endCurrent',
            params: ({ event }) => ({ status: 'done', percent: 100, path: event.put.path }),
          },
        },
        'file.failed': {
          target: 'idle',
          actions: {
            type: 'endCurrent',
            params: ({ event }) => ({ status: 'failed', error: errorMessage(event.error) }),
          },
        },
      },
    },
  },
});

export type GuestFilesActorRef = ActorRefFrom<typeof guestFilesMachine>;
export type GuestFilesSnapshot = SnapshotFrom<typeof guestFilesMachine>;
