import { NEVER, Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import {
  createActor,
  fromCallback,
  fromEventObservable,
  fromPromise,
  SimulatedClock,
  type EventObject,
} from 'xstate';
import type { Workspace } from '../api/workspace';
import { collaboratorsMachine } from './collaboratorsMachine';
import { selectCollaborators } from './collaboratorsMachine.selectors';
import { gamespaceCleanupMachine } from './gamespaceCleanupMachine';
import { invitationMachine } from './invitationMachine';
import { isoChooserMachine } from './isoChooserMachine';
import { presenceMachine, type PresenceSourceEvent } from './presenceMachine';
import { templateEditorMachine } from './templateEditorMachine';
import { selectSavedTemplateName } from './templateEditorMachine.selectors';
import { templateListMachine, type TemplateListHubEvent } from './templateListMachine';
import { selectTemplateEditors } from './templateListMachine.selectors';
import { templateSelectorMachine } from './templateSelectorMachine';
import { flush } from './testing/deferred';
import { unreachedStateIds } from './testing/reachability';
import { workspaceActionsMachine } from './workspaceActionsMachine';
import {
  isWorkspaceSection,
  JANITOR_NOTICE_MS,
  workspaceEditorMachine,
  type WorkspaceTopoEvent,
} from './workspaceEditorMachine';
import {
  selectCollaboratorsActor,
  selectDeletedBy,
  selectInvitationActor,
  selectIsWorkspaceLoading,
  selectPresence,
  selectSettingsActor,
  selectShowJanitorNotice,
  selectTemplateListActor,
  selectWorkspaceActionsActor,
  selectWorkspaceHeader,
  selectWorkspaceLoadError,
} from './workspaceEditorMachine.selectors';
import { workspaceSettingsMachine } from './workspaceSettingsMachine';
import { selectSettingsValue } from './workspaceSettingsMachine.selectors';

const never = <T, I>() => fromPromise<T, I>(() => new Promise<T>(() => undefined));

/** The sections' machines with effects that never answer: these tests look at the editor. */
const sections = {
  settings: workspaceSettingsMachine.provide({ actors: { saveWorkspace: never() } }),
  collaborators: collaboratorsMachine.provide({ actors: { removeWorker: never() } }),
  invitation: invitationMachine.provide({
    actors: { generateInvitation: never(), copyToClipboard: never() },
  }),
  templates: templateListMachine.provide({
    actors: {
      templateEvents: fromEventObservable<TemplateListHubEvent, { workspaceId: string }>(
        () => NEVER,
      ),
      templateEditor: templateEditorMachine.provide({
        actors: {
          saveTemplate: never(),
          unlinkTemplate: never(),
          listSiblings: never(),
          relinkTemplate: never(),
          deleteTemplate: never(),
          isoChooser: isoChooserMachine.provide({ actors: { listIsos: never() } }),
        },
      }),
      templateSelector: templateSelectorMachine.provide({
        actors: { searchTemplates: never(), linkTemplate: never() },
      }),
      gamespaceCleanup: gamespaceCleanupMachine.provide({ actors: { endGamespaces: never() } }),
    },
  }),
};

function startEditor(
  id: string,
  outcome: Workspace | { reject: unknown },
  userId: string | null = null,
  deleteOutcome: Promise<unknown> = new Promise(() => undefined),
) {
  const clock = new SimulatedClock();
  const loaded: string[] = [];
  /** What the editor asked of the hub, in order. */
  const hub: string[] = [];
  const topo = new Subject<WorkspaceTopoEvent>();
  const navigations: string[] = [];
  let forgotten = 0;
  const actor = createActor(
    workspaceEditorMachine.provide({
      actors: {
        ...sections,
        workspaceActions: workspaceActionsMachine.provide({
          actors: { cloneWorkspace: never(), deleteWorkspace: fromPromise(() => deleteOutcome) },
          actions: {
            navigateToWorkspace: () => undefined,
            navigateHome: () => navigations.push('/'),
          },
        }),
        loadWorkspace: fromPromise<Workspace, { id: string }>(async ({ input }) => {
          loaded.push(input.id);
          if ('reject' in outcome) throw outcome.reject;
          return outcome;
        }),
        topoEvents: fromEventObservable<WorkspaceTopoEvent, { workspaceId: string }>(() => topo),
        listenToChannel: fromCallback<EventObject, { channelId: string }>(({ input }) => {
          hub.push(`listen ${input.channelId}`);
          return () => hub.push(`leave ${input.channelId}`);
        }),
        presence: presenceMachine.provide({
          actors: {
            hubEvents: fromEventObservable<PresenceSourceEvent, { channelId: string }>(() => NEVER),
          },
          actions: { greet: () => undefined },
        }),
      },
      actions: { forgetLastPage: () => forgotten++ },
    }),
    { input: { id, userId, origin: 'https://topoplay.test' }, clock },
  ).start();
  return { actor, clock, loaded, hub, topo, navigations, forgotten: () => forgotten };
}

const LAB: Workspace = {
  id: 'ws-1',
  name: 'Lab One',
  workers: [{ subjectId: 'u-me', subjectName: 'Creator', permission: 'manager' }],
  templates: [
    { id: 't-2', name: 'router-1', workspaceId: 'ws-1' },
    { id: 't-1', name: 'Kali', workspaceId: 'ws-1' },
  ],
};

describe('workspaceEditorMachine', () => {
  it('loads the workspace of its id and shows its header', async () => {
    const { actor, loaded } = startEditor('ws-1', LAB);
    expect(selectIsWorkspaceLoading(actor.getSnapshot())).toBe(true);
    expect(selectWorkspaceHeader(actor.getSnapshot())).toBeNull();
    await flush();
    expect(loaded).toEqual(['ws-1']);
    expect(selectIsWorkspaceLoading(actor.getSnapshot())).toBe(false);
    expect(selectWorkspaceHeader(actor.getSnapshot())).toEqual({ id: 'ws-1', name: 'Lab One' });
    expect(selectWorkspaceLoadError(actor.getSnapshot())).toBeNull();
  });

  it('shows the janitor alert for JANITOR_NOTICE_MS after loading', async () => {
    const { actor, clock } = startEditor('ws-1', LAB);
    await flush();
    expect(selectShowJanitorNotice(actor.getSnapshot())).toBe(true);
    clock.increment(JANITOR_NOTICE_MS - 1);
    expect(selectShowJanitorNotice(actor.getSnapshot())).toBe(true);
    clock.increment(1);
    expect(selectShowJanitorNotice(actor.getSnapshot())).toBe(false);
    expect(JANITOR_NOTICE_MS).toBe(10_000);
  });

  it('hides the janitor alert when dismissed', async () => {
    const { actor } = startEditor('ws-1', LAB);
    await flush();
    actor.send({ type: 'workspace.janitorNoticeDismissed' });
    expect(selectShowJanitorNotice(actor.getSnapshot())).toBe(false);
  });

  it('shows the server message, camel-case split, and forgets the remembered page', async () => {
    const { actor, forgotten } = startEditor('nope', {
      reject: { status: 400, message: 'ResourceNotFound' },
    });
    await flush();
    const snapshot = actor.getSnapshot();
    expect(snapshot.value).toBe('failed');
    expect(selectWorkspaceLoadError(snapshot)).toBe('Resource Not Found');
    expect(selectWorkspaceHeader(snapshot)).toBeNull();
    expect(selectShowJanitorNotice(snapshot)).toBe(false);
    expect(forgotten()).toBe(1);
  });

  it('listens on the workspace channel once loaded, with presence, and leaves when closed', async () => {
    const { actor, hub } = startEditor('ws-1', LAB, 'u-me');
    expect(hub).toEqual([]);
    expect(selectPresence(actor.getSnapshot())).toBeUndefined();
    await flush();
    expect(hub).toEqual(['listen ws-1']);
    const presence = selectPresence(actor.getSnapshot());
    expect(presence?.getSnapshot().context).toMatchObject({ channelId: 'ws-1', selfId: 'u-me' });

    actor.stop();
    expect(hub).toEqual(['listen ws-1', 'leave ws-1']);
    expect(presence?.getSnapshot().status).toBe('stopped');
  });

  it('does not listen on a workspace that failed to load', async () => {
    const { actor, hub } = startEditor('nope', { reject: { status: 403, message: 'Forbidden' } });
    await flush();
    expect(hub).toEqual([]);
    expect(selectPresence(actor.getSnapshot())).toBeUndefined();
  });

  it('runs the sections with the loaded workspace: settings, collaborators, invitation, templates', async () => {
    const { actor } = startEditor('ws-1', LAB);
    expect(selectSettingsActor(actor.getSnapshot())).toBeUndefined();
    expect(selectWorkspaceActionsActor(actor.getSnapshot())).toBeDefined();
    await flush();
    const snapshot = actor.getSnapshot();
    const settings = selectSettingsActor(snapshot);
    expect(settings && selectSettingsValue('name')(settings.getSnapshot())).toBe('Lab One');
    const collaborators = selectCollaboratorsActor(snapshot);
    expect(collaborators && selectCollaborators(collaborators.getSnapshot())).toEqual([
      { subjectId: 'u-me', name: 'Creator', permission: 'manager' },
    ]);
    expect(selectInvitationActor(snapshot)?.getSnapshot().context).toMatchObject({
      workspaceId: 'ws-1',
      origin: 'https://topoplay.test',
    });
    const templates = selectTemplateListActor(snapshot);
    expect(
      templates &&
        selectTemplateEditors(templates.getSnapshot()).map((editor) =>
          selectSavedTemplateName(editor.getSnapshot()),
        ),
    ).toEqual(['Kali', 'router-1']);
  });

  it("follows TOPO.UPDATED: the header's name, the settings form and the collaborators", async () => {
    const { actor, topo } = startEditor('ws-1', LAB);
    await flush();
    topo.next({
      type: 'topo.updated',
      workspace: { ...LAB, name: 'Intro Lab', workers: [] },
    });
    const snapshot = actor.getSnapshot();
    expect(selectWorkspaceHeader(snapshot)).toEqual({ id: 'ws-1', name: 'Intro Lab' });
    const settings = selectSettingsActor(snapshot);
    expect(settings && selectSettingsValue('name')(settings.getSnapshot())).toBe('Intro Lab');
    const collaborators = selectCollaboratorsActor(snapshot);
    expect(collaborators && selectCollaborators(collaborators.getSnapshot())).toEqual([]);
  });

  it('shows a name saved in the settings form in the header at once', async () => {
    const { actor } = startEditor('ws-1', LAB);
    await flush();
    actor.send({ type: 'workspace.settingsSaved', name: 'Intro Lab' });
    expect(selectWorkspaceHeader(actor.getSnapshot())?.name).toBe('Intro Lab');
  });

  it('explains a TOPO.DELETED, forgets the remembered page and closes the sections', async () => {
    const { actor, topo, forgotten, hub } = startEditor('ws-1', LAB);
    await flush();
    expect(selectDeletedBy(actor.getSnapshot())).toBeNull();
    topo.next({ type: 'topo.deleted', by: 'Administrator' });
    const snapshot = actor.getSnapshot();
    expect(selectDeletedBy(snapshot)).toBe('Administrator');
    expect(forgotten()).toBe(1);
    expect(selectSettingsActor(snapshot)).toBeUndefined();
    expect(hub).toEqual(['listen ws-1', 'leave ws-1']);
  });

  it('finishes its own delete and goes home though the hub announced it first', async () => {
    let answer!: () => void;
    const response = new Promise<void>((resolve) => (answer = resolve));
    const { actor, topo, navigations } = startEditor('ws-1', LAB, 'u-me', response);
    await flush();
    const actions = selectWorkspaceActionsActor(actor.getSnapshot());
    actions?.send({ type: 'workspace.deleteRequested' });
    actions?.send({ type: 'workspace.actionConfirmed' });
    topo.next({ type: 'topo.deleted', by: 'Creator' });
    answer();
    await flush();
    expect(navigations).toEqual(['/']);
  });

  it('knows the sections of the editor', () => {
    expect(
      ['settings', 'templates', 'document', 'challenge', 'files', 'play'].every(isWorkspaceSection),
    ).toBe(true);
    expect(isWorkspaceSection('invite')).toBe(false);
    expect(isWorkspaceSection(undefined)).toBe(false);
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(workspaceEditorMachine, {
        serializeState: (s) => JSON.stringify(s.value),
        inputs: [{ id: 'ws-1' }],
      }),
    ).toEqual([]);
  });
});
