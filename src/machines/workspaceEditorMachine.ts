import {
  assign,
  fromCallback,
  fromPromise,
  setup,
  type ActorRefFrom,
  type EventObject,
  type SnapshotFrom,
} from 'xstate';
import { errorMessage } from '../domain/text';
import { presenceMachine } from './presenceMachine';

/** The editor's tabs, in order; 'files' is offered only when uploads are enabled. */
export const WORKSPACE_SECTIONS = [
  'settings',
  'templates',
  'document',
  'challenge',
  'files',
  'play',
] as const;
export type WorkspaceSection = (typeof WORKSPACE_SECTIONS)[number];

export const isWorkspaceSection = (value: string | undefined): value is WorkspaceSection =>
  (WORKSPACE_SECTIONS as readonly string[]).includes(value ?? '');

/** What the editor header shows; the sections load their own data. */
export interface WorkspaceHeader {
  id: string;
  name: string;
}

/** How long the settings tab shows the janitor alert (spec §2 Workspace editor, §9). */
export const JANITOR_NOTICE_MS = 10_000;

export type WorkspaceEditorEvent = { type: 'workspace.janitorNoticeDismissed' };

export interface WorkspaceEditorInput {
  id: string;
  /** The signed-in user's id, when known (the presence bar marks their other tabs). */
  userId?: string | null;
}

export interface WorkspaceEditorContext {
  id: string;
  userId: string | null;
  workspace: WorkspaceHeader | null;
  error: string | null;
}

/**
 * One workspace opened in the editor (one actor per workspace id). Loading it decides whether
 * the sections can be shown at all; a failure shows the server's message with a way home. Once
 * loaded, the editor listens on the workspace's hub channel and tracks who else is in it.
 */
export const workspaceEditorMachine = setup({
  types: {
    input: {} as WorkspaceEditorInput,
    context: {} as WorkspaceEditorContext,
    events: {} as WorkspaceEditorEvent,
    // 'janitorNotice': the alert 'Inactive workspaces may be deleted by the janitor.' shows.
    tags: {} as 'janitorNotice',
  },
  delays: {
    janitorNotice: JANITOR_NOTICE_MS,
  },
  actors: {
    /** GET workspace/{id}. */
    loadWorkspace: fromPromise<WorkspaceHeader, { id: string }>(() => {
      throw new Error('workspaceEditorMachine: provide the loadWorkspace actor');
    }),
    /**
     * Listens on the hub channel while running: asks the hub connection to listen when started
     * and to leave when stopped (the workspace closed or failed to stay open).
     */
    listenToChannel: fromCallback<EventObject, { channelId: string }>(() => {
      throw new Error('workspaceEditorMachine: provide the listenToChannel actor');
    }),
    /** Who else is in the workspace; provide it with its hub events and greeting. */
    presence: presenceMachine,
  },
  actions: {
    /**
     * The remembered last page points at this workspace; it cannot be opened, so home must not
     * send the user back to it (spec §8).
     */
    forgetLastPage: () => {
      throw new Error('workspaceEditorMachine: provide the forgetLastPage action');
    },
  },
}).createMachine({
  id: 'workspaceEditor',
  description:
    'One workspace in the editor: loads it, then listens on its hub channel with presence and shows the janitor alert for 10 s; a failure shows the server message and forgets the remembered page.',
  context: ({ input }) => ({
    id: input.id,
    userId: input.userId ?? null,
    workspace: null,
    error: null,
  }),
  initial: 'loading',
  states: {
    loading: {
      invoke: {
        src: 'loadWorkspace',
        input: ({ context }) => ({ id: context.id }),
        onDone: {
          target: 'loaded',
          actions: assign({ workspace: ({ event }) => event.output }),
        },
        onError: {
          target: 'failed',
          actions: [assign({ error: ({ event }) => errorMessage(event.error) }), 'forgetLastPage'],
        },
      },
    },
    loaded: {
      // Only a workspace the user may open is listened to: the server refuses the others.
      invoke: [
        {
          id: 'listenToChannel',
          src: 'listenToChannel',
          input: ({ context }) => ({ channelId: context.id }),
        },
        {
          id: 'presence',
          src: 'presence',
          input: ({ context }) => ({ channelId: context.id, selfId: context.userId }),
        },
      ],
      initial: 'noticeShown',
      states: {
        noticeShown: {
          tags: ['janitorNotice'],
          after: { janitorNotice: 'noticeHidden' },
          on: { 'workspace.janitorNoticeDismissed': 'noticeHidden' },
        },
        noticeHidden: {},
      },
    },
    failed: {},
  },
});

export type WorkspaceEditorActorRef = ActorRefFrom<typeof workspaceEditorMachine>;
export type WorkspaceEditorSnapshot = SnapshotFrom<typeof workspaceEditorMachine>;
