import { NEVER, Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import {
  createActor,
  createMachine,
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
import { autosaveFormMachine } from './autosaveFormMachine';
import { templateActionsMachine } from './templateActionsMachine';
import { templateEditorMachine } from './templateEditorMachine';
import { selectSavedTemplateName } from './templateEditorMachine.selectors';
import { templateListMachine, type TemplateListHubEvent } from './templateListMachine';
import { selectTemplateEditors } from './templateListMachine.selectors';
import { templateSelectorMachine } from './templateSelectorMachine';
import { deferred, flush } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
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
import { selectSettingsForm, selectSettingsValue } from './workspaceSettingsMachine.selectors';

const never = <T, I>() => fromPromise<T, I>(() => new Promise<T>(() => undefined));

/** The sections' machines with effects that never answer: these tests look at the editor. */
const sections = {
  settings: workspaceSettingsMachine.provide({
    actors: { form: autosaveFormMachine.provide({ actors: { save: never() } }) },
  }),
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
          form: autosaveFormMachine.provide({ actors: { save: never() } }),
          actions: templateActionsMachine.provide({
            actors: {
              unlinkTemplate: never(),
              listSiblings: never(),
              relinkTemplate: never(),
              deleteTemplate: never(),
            },
          }),
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

type LoadOutcome = Workspace | { reject: unknown };

/** `outcome` is what loading the workspace answers, at once or when the test settles it. */
function startEditor(
  id: string,
  outcome: LoadOutcome | Promise<LoadOutcome>,
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
            announceWorkspacesChanged: () => undefined,
          },
        }),
        loadWorkspace: fromPromise<Workspace, { id: string }>(async ({ input }) => {
          loaded.push(input.id);
          const answer = await outcome;
          if ('reject' in answer) throw answer.reject;
          return answer;
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
    expect(selectWorkspaceLoadError(snapshot)).toBe('It was not found: it may have been deleted.');
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
    const form = settings && selectSettingsForm(settings.getSnapshot());
    expect(form && selectSettingsValue('name')(form.getSnapshot())).toBe('Lab One');
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
    const form = settings && selectSettingsForm(settings.getSnapshot());
    expect(form && selectSettingsValue('name')(form.getSnapshot())).toBe('Intro Lab');
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

/**
 * Model-based test: one workspace opened in the editor (spec §2 Workspace editor, §8), loaded
 * or refused, then followed through the hub's TOPO events, the settings form's saves and the
 * janitor alert's 10 s on a simulated clock. It checks the header, the alert, the hub channel
 * and the remembered page.
 */
describe('workspaceEditorMachine against its model', () => {
  type ModelEvent =
    | { type: 'LOADED' }
    | { type: 'FAILED' }
    | { type: 'NOTICE_ELAPSED' }
    | { type: 'NOTICE_DISMISSED' }
    | { type: 'UPDATED' }
    | { type: 'NAME_SAVED' }
    | { type: 'DELETED' };

  const open = (own: string) => ({
    UPDATED: own,
    NAME_SAVED: own,
    NOTICE_DISMISSED: 'noticeHidden',
    NOTICE_ELAPSED: 'noticeHidden',
    DELETED: 'deleted',
  });

  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'workspaceEditorModel',
    initial: 'loading',
    states: {
      loading: { on: { LOADED: 'noticeShown', FAILED: 'failed' } },
      noticeShown: { on: open('noticeShown') },
      noticeHidden: { on: open('noticeHidden') },
      // Closed: the hub's events and the form's reports change nothing any more.
      deleted: { on: { UPDATED: 'deleted', NAME_SAVED: 'deleted' } },
      failed: {},
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, workspaceEditorMachine, {
        states: {
          loading: 'loading',
          noticeShown: 'loaded.noticeShown',
          noticeHidden: 'loaded.noticeHidden',
          deleted: 'deleted',
          failed: 'failed',
        },
        events: {
          LOADED: 'xstate.done.actor.loadWorkspace',
          FAILED: 'xstate.error.actor.loadWorkspace',
          NOTICE_ELAPSED: 'xstate.after.janitorNotice.workspaceEditor.loaded.noticeShown',
          NOTICE_DISMISSED: 'workspace.janitorNoticeDismissed',
          UPDATED: 'topo.updated',
          NAME_SAVED: 'workspace.settingsSaved',
          DELETED: 'topo.deleted',
        },
      }),
    ).toEqual([]);
  });

  const paths = modelPaths(model);

  it('walks every transition of the model', () => {
    const { walked, transitions } = transitionCoverage(model, paths);
    expect(walked).toEqual(transitions);
  });

  for (const path of paths) {
    it(path.description, async () => {
      const load = deferred<LoadOutcome>();
      const { actor, clock, hub, topo, forgotten } = startEditor('ws-1', load.promise);
      let name: string | null = null;
      let names = 0;
      /** What the model says the editor is doing: only an open workspace takes a new name. */
      let current = 'loading';
      const expectEditor =
        (state: string, notice: boolean, channel: string[], deletedBy: string | null = null) =>
        () => {
          current = state;
          const snapshot = actor.getSnapshot();
          expect(selectIsWorkspaceLoading(snapshot)).toBe(state === 'loading');
          expect(selectWorkspaceHeader(snapshot)).toEqual(
            name === null ? null : { id: 'ws-1', name },
          );
          expect(selectWorkspaceLoadError(snapshot)).toBe(
            state === 'failed' ? 'It was not found: it may have been deleted.' : null,
          );
          expect(selectShowJanitorNotice(snapshot)).toBe(notice);
          expect(selectDeletedBy(snapshot)).toBe(deletedBy);
          expect(hub).toEqual(channel);
          expect(selectPresence(snapshot) !== undefined).toBe(state === 'loaded');
          expect(forgotten()).toBe(state === 'failed' || state === 'deleted' ? 1 : 0);
        };
      const listening = ['listen ws-1'];
      const left = ['listen ws-1', 'leave ws-1'];
      await path.test({
        states: {
          loading: expectEditor('loading', false, []),
          noticeShown: expectEditor('loaded', true, listening),
          noticeHidden: expectEditor('loaded', false, listening),
          deleted: expectEditor('deleted', false, left, 'Administrator'),
          failed: expectEditor('failed', false, []),
        },
        events: {
          LOADED: async () => {
            name = LAB.name ?? '';
            load.resolve(LAB);
            await flush();
          },
          FAILED: async () => {
            load.resolve({ reject: { status: 400, message: 'ResourceNotFound' } });
            await flush();
          },
          NOTICE_ELAPSED: () => clock.increment(JANITOR_NOTICE_MS),
          NOTICE_DISMISSED: () => actor.send({ type: 'workspace.janitorNoticeDismissed' }),
          UPDATED: () => {
            const renamed = `Lab ${++names}`;
            if (current === 'loaded') name = renamed;
            topo.next({ type: 'topo.updated', workspace: { ...LAB, name: renamed } });
          },
          NAME_SAVED: () => {
            const saved = `Saved ${++names}`;
            if (current === 'loaded') name = saved;
            actor.send({ type: 'workspace.settingsSaved', name: saved });
          },
          DELETED: () => topo.next({ type: 'topo.deleted', by: 'Administrator' }),
        },
      });
    });
  }
});
