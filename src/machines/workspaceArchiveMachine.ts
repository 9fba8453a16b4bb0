import { assign, fromPromise, setup, type ActorRefFrom, type SnapshotFrom } from 'xstate';
import { errorMessage } from '../domain/text';

/**
 * The ids typed into the export box: separated by spaces, commas or new lines, each once. "all"
 * anywhere means every workspace, which the server reads from `["all"]` alone.
 */
export function parseWorkspaceIds(text: string): string[] {
  const ids = [...new Set(text.split(/[\s,;]+/).filter((id) => id !== ''))];
  return ids.some((id) => id.toLowerCase() === 'all') ? ['all'] : ids;
}

export interface WorkspaceArchiveContext {
  /** The export box as typed. */
  ids: string;
  /** What the last import or upload answered (ids added, or "{file}: {why}"); null before one. */
  results: { kind: 'imported' | 'uploaded'; items: string[] } | null;
  /** The confirmation of the last export or download. */
  done: string | null;
  error: string | null;
}

export type WorkspaceArchiveEvent =
  | { type: 'archive.idsEdited'; text: string }
  | { type: 'archive.exportRequested' }
  | { type: 'archive.downloadRequested' }
  | { type: 'archive.importRequested' }
  | { type: 'archive.uploadRequested'; file: Blob; fileName: string };

const notProvided = (name: string): Error =>
  new Error(`workspaceArchiveMachine: '${name}' is provided by the app (src/app)`);

/**
 * Export and import of workspaces as a zip (wire reference §1.8), the admin Dashboard's panel.
 * One operation at a time: each answers with its own confirmation or error, which replaces the
 * last one's.
 */
export const workspaceArchiveMachine = setup({
  types: {
    context: {} as WorkspaceArchiveContext,
    events: {} as WorkspaceArchiveEvent,
  },
  actors: {
    /** POST admin/export: the archive written to the server's folder. */
    exportWorkspaces: fromPromise<unknown, { ids: string[] }>(() => {
      throw notProvided('exportWorkspaces');
    }),
    /** POST admin/download, saved through the browser by the app. */
    downloadArchive: fromPromise<unknown, { ids: string[] }>(() => {
      throw notProvided('downloadArchive');
    }),
    /** GET admin/import. */
    importWorkspaces: fromPromise<string[], void>(() => {
      throw notProvided('importWorkspaces');
    }),
    /** POST admin/upload. */
    uploadArchive: fromPromise<string[], { file: Blob; fileName: string }>(() => {
      throw notProvided('uploadArchive');
    }),
  },
  guards: {
    hasIds: ({ context }) => parseWorkspaceIds(context.ids).length > 0,
  },
  actions: {
    cleared: assign({ done: null, error: null, results: null }),
  },
}).createMachine({
  id: 'workspaceArchive',
  description: 'Export and import of workspaces as a zip: download, export, import and upload.',
  context: { ids: '', results: null, done: null, error: null },
  initial: 'idle',
  states: {
    idle: {
      on: {
        'archive.idsEdited': { actions: assign({ ids: ({ event }) => event.text }) },
        'archive.exportRequested': { guard: 'hasIds', target: 'exporting', actions: 'cleared' },
        'archive.downloadRequested': {
          guard: 'hasIds',
          target: 'downloading',
          actions: 'cleared',
        },
        'archive.importRequested': { target: 'importing', actions: 'cleared' },
        'archive.uploadRequested': { target: 'uploading', actions: 'cleared' },
      },
    },
    exporting: {
      tags: ['busy'],
      invoke: {
        src: 'exportWorkspaces',
        input: ({ context }) => ({ ids: parseWorkspaceIds(context.ids) }),
        onDone: {
          target: 'idle',
          actions: assign({ done: "Exported to the server's folder (_export)." }),
        },
        onError: {
          target: 'idle',
          actions: assign({ error: ({ event }) => errorMessage(event.error) }),
        },
      },
    },
    downloading: {
      tags: ['busy'],
      invoke: {
        src: 'downloadArchive',
        input: ({ context }) => ({ ids: parseWorkspaceIds(context.ids) }),
        onDone: { target: 'idle', actions: assign({ done: 'Downloaded topomojo-export.zip.' }) },
        onError: {
          target: 'idle',
          actions: assign({ error: ({ event }) => errorMessage(event.error) }),
        },
      },
    },
    importing: {
      tags: ['busy'],
      invoke: {
        src: 'importWorkspaces',
        onDone: {
          target: 'idle',
          actions: assign({
            results: ({ event }) => ({ kind: 'imported' as const, items: event.output }),
          }),
        },
        onError: {
          target: 'idle',
          actions: assign({ error: ({ event }) => errorMessage(event.error) }),
        },
      },
    },
    uploading: {
      tags: ['busy'],
      invoke: {
        src: 'uploadArchive',
        input: ({ event }) => {
          // Only archive.uploadRequested enters this state.
          const { file, fileName } = event as Extract<
            WorkspaceArchiveEvent,
            { type: 'archive.uploadRequested' }
          >;
          return { file, fileName };
        },
        onDone: {
          target: 'idle',
          actions: assign({
            results: ({ event }) => ({ kind: 'uploaded' as const, items: event.output }),
          }),
        },
        onError: {
          target: 'idle',
          actions: assign({ error: ({ event }) => errorMessage(event.error) }),
        },
      },
    },
  },
});

export type WorkspaceArchiveActorRef = ActorRefFrom<typeof workspaceArchiveMachine>;
export type WorkspaceArchiveSnapshot = SnapshotFrom<typeof workspaceArchiveMachine>;
