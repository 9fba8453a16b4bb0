import {
  assign,
  enqueueActions,
  fromCallback,
  fromEventObservable,
  fromPromise,
  setup,
  type ActorRefFrom,
  type EventObject,
  type SnapshotFrom,
} from 'xstate';
import type { Workspace } from '../api/workspace';
import { errorMessage } from '../domain/text';
import { challengeFormMachine } from './challengeFormMachine';
import { collaboratorsMachine } from './collaboratorsMachine';
import { documentEditorMachine } from './documentEditorMachine';
import { invitationMachine } from './invitationMachine';
import { isoFilesMachine } from './isoFilesMachine';
import { presenceMachine } from './presenceMachine';
import { templateListMachine } from './templateListMachine';
import { workspaceActionsMachine } from './workspaceActionsMachine';
import { workspaceSettingsMachine, type WorkspaceSettingsReport } from './workspaceSettingsMachine';

export { WORKSPACE_SECTIONS, isWorkspaceSection, type WorkspaceSection } from './workspaceSections';

/** What the editor header shows; the sections load their own data. */
export interface WorkspaceHeader {
  id: string;
  name: string;
}

/** How long the settings tab shows the janitor alert (spec §2 Workspace editor, §9). */
export const JANITOR_NOTICE_MS = 10_000;

/** The hub's TopoEvents for the workspace (TOPO.UPDATED, TOPO.DELETED), validated by the app. */
export type WorkspaceTopoEvent =
  | { type: 'topo.updated'; workspace: Workspace }
  /** Someone deleted the workspace; `by` is their name. */
  | { type: 'topo.deleted'; by: string };

export type WorkspaceEditorEvent =
  { type: 'workspace.janitorNoticeDismissed' } | WorkspaceTopoEvent | WorkspaceSettingsReport;

export interface WorkspaceEditorInput {
  id: string;
  /** The signed-in user's id, when known (the presence bar marks their other tabs). */
  userId?: string | null;
  /** The SPA's origin, for the invitation link. */
  origin?: string;
}

export interface WorkspaceEditorContext {
  id: string;
  userId: string | null;
  origin: string;
  /** The workspace as loaded, then as the hub last described it. */
  workspace: Workspace | null;
  header: WorkspaceHeader | null;
  error: string | null;
  /** Who deleted the workspace while it was open ('' when the server did not say). */
  deletedBy: string | null;
}

/** The loaded workspace; only `loaded` reads it, where it is always there. */
const workspaceOf = (context: { id: string; workspace: Workspace | null }): Workspace =>
  context.workspace ?? { id: context.id, name: '' };

const headerOf = (workspace: Workspace): WorkspaceHeader => ({
  id: workspace.id,
  name: workspace.name ?? '',
});

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
    loadWorkspace: fromPromise<Workspace, { id: string }>(() => {
      throw new Error('workspaceEditorMachine: provide the loadWorkspace actor');
    }),
    /** The workspace's TopoEvents from the hub. */
    topoEvents: fromEventObservable<WorkspaceTopoEvent, { workspaceId: string }>(() => {
      throw new Error('workspaceEditorMachine: provide the topoEvents actor');
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
    // The sections' machines; provide each with its effects.
    settings: workspaceSettingsMachine,
    collaborators: collaboratorsMachine,
    invitation: invitationMachine,
    workspaceActions: workspaceActionsMachine,
    templates: templateListMachine,
    document: documentEditorMachine,
    files: isoFilesMachine,
    challenge: challengeFormMachine,
  },
  actions: {
    /**
     * The remembered last page points at this workspace; it cannot be opened, so home must not
     * send the user back to it (spec §8).
     */
    forgetLastPage: () => {
      throw new Error('workspaceEditorMachine: provide the forgetLastPage action');
    },
    /**
     * TOPO.UPDATED: the header shows the new name, and the settings form and collaborators get
     * the server's copy (the form keeps the fields being edited).
     */
    applyRemoteUpdate: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'topo.updated' || event.workspace?.id !== context.id) return;
      const { workspace } = event;
      enqueue.assign({ workspace, header: headerOf(workspace) });
      enqueue.sendTo('settings', { type: 'workspace.updatedRemotely', workspace });
      if (workspace.workers) {
        enqueue.sendTo('collaborators', {
          type: 'workers.updatedRemotely',
          workers: workspace.workers,
        });
      }
    }),
  },
}).createMachine({
  id: 'workspaceEditor',
  description:
    'One workspace in the editor: loads it, then listens on its hub channel with presence, runs its sections and shows the janitor alert for 10 s; follows TOPO.UPDATED and TOPO.DELETED; a load failure shows the server message and forgets the remembered page.',
  context: ({ input }) => ({
    id: input.id,
    userId: input.userId ?? null,
    origin: input.origin ?? '',
    workspace: null,
    header: null,
    error: null,
    deletedBy: null,
  }),
  // Clone and Delete run as long as the editor: a delete must complete and go home even after
  // the hub has said the workspace is gone (its TOPO.DELETED may arrive before the response).
  invoke: {
    id: 'workspaceActions',
    src: 'workspaceActions',
    input: ({ context }) => ({ workspaceId: context.id }),
  },
  initial: 'loading',
  states: {
    loading: {
      invoke: {
        id: 'loadWorkspace',
        src: 'loadWorkspace',
        input: ({ context }) => ({ id: context.id }),
        onDone: {
          target: 'loaded',
          actions: assign(({ event }) =>
            event.output ? { workspace: event.output, header: headerOf(event.output) } : {},
          ),
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
        { src: 'topoEvents', input: ({ context }) => ({ workspaceId: context.id }) },
        {
          id: 'settings',
          src: 'settings',
          input: ({ context, self }) => ({ workspace: workspaceOf(context), reportTo: self }),
        },
        {
          id: 'collaborators',
          src: 'collaborators',
          input: ({ context }) => ({
            workspaceId: context.id,
            workers: context.workspace?.workers ?? [],
          }),
        },
        {
          id: 'invitation',
          src: 'invitation',
          input: ({ context }) => ({ workspaceId: context.id, origin: context.origin }),
        },
        // The document loads when its tab first opens, and its edits outlive a tab switch.
        {
          id: 'document',
          src: 'document',
          input: ({ context }) => ({ workspaceId: context.id }),
        },
        {
          id: 'templates',
          src: 'templates',
          input: ({ context }) => ({
            workspaceId: context.id,
            templates: context.workspace?.templates ?? [],
            activeGamespaceCount: context.workspace?.stats?.activeGamespaceCount ?? 0,
          }),
        },
        {
          id: 'challenge',
          src: 'challenge',
          input: ({ context }) => ({ workspaceId: context.id }),
        },
        // Uploads keep going while another tab is shown.
        { id: 'files', src: 'files', input: ({ context }) => ({ workspaceId: context.id }) },
      ],
      on: {
        'topo.updated': { actions: 'applyRemoteUpdate' },
        'topo.deleted': {
          target: 'deleted',
          actions: [assign({ deletedBy: ({ event }) => event.by ?? '' }), 'forgetLastPage'],
        },
        // The header shows a saved name at once, hub or no hub.
        'workspace.settingsSaved': {
          actions: assign({
            header: ({ context, event }) =>
              context.header && { ...context.header, name: event.name ?? context.header.name },
          }),
        },
      },
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
    /** Deleted while open (TOPO.DELETED): the page explains it and offers the way home. */
    deleted: {},
    failed: {},
  },
});

export type WorkspaceEditorActorRef = ActorRefFrom<typeof workspaceEditorMachine>;
export type WorkspaceEditorSnapshot = SnapshotFrom<typeof workspaceEditorMachine>;
