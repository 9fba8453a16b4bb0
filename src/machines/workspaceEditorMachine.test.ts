import { NEVER } from 'rxjs';
import { describe, expect, it } from 'vitest';
import {
  createActor,
  fromCallback,
  fromEventObservable,
  fromPromise,
  SimulatedClock,
  type EventObject,
} from 'xstate';
import { presenceMachine, type PresenceSourceEvent } from './presenceMachine';
import {
  isWorkspaceSection,
  JANITOR_NOTICE_MS,
  workspaceEditorMachine,
  type WorkspaceHeader,
} from './workspaceEditorMachine';
import {
  selectIsWorkspaceLoading,
  selectPresence,
  selectShowJanitorNotice,
  selectWorkspaceHeader,
  selectWorkspaceLoadError,
} from './workspaceEditorMachine.selectors';
import { unreachedStateIds } from './testing/reachability';

const flush = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

function startEditor(
  id: string,
  outcome: WorkspaceHeader | { reject: unknown },
  userId: string | null = null,
) {
  const clock = new SimulatedClock();
  const loaded: string[] = [];
  /** What the editor asked of the hub, in order. */
  const hub: string[] = [];
  let forgotten = 0;
  const actor = createActor(
    workspaceEditorMachine.provide({
      actors: {
        loadWorkspace: fromPromise<WorkspaceHeader, { id: string }>(async ({ input }) => {
          loaded.push(input.id);
          if ('reject' in outcome) throw outcome.reject;
          return outcome;
        }),
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
    { input: { id, userId }, clock },
  ).start();
  return { actor, clock, loaded, hub, forgotten: () => forgotten };
}

describe('workspaceEditorMachine', () => {
  it('loads the workspace of its id and shows its header', async () => {
    const { actor, loaded } = startEditor('ws-1', { id: 'ws-1', name: 'Lab One' });
    expect(selectIsWorkspaceLoading(actor.getSnapshot())).toBe(true);
    expect(selectWorkspaceHeader(actor.getSnapshot())).toBeNull();
    await flush();
    expect(loaded).toEqual(['ws-1']);
    expect(selectIsWorkspaceLoading(actor.getSnapshot())).toBe(false);
    expect(selectWorkspaceHeader(actor.getSnapshot())).toEqual({ id: 'ws-1', name: 'Lab One' });
    expect(selectWorkspaceLoadError(actor.getSnapshot())).toBeNull();
  });

  it('shows the janitor alert for JANITOR_NOTICE_MS after loading', async () => {
    const { actor, clock } = startEditor('ws-1', { id: 'ws-1', name: 'Lab One' });
    await flush();
    expect(selectShowJanitorNotice(actor.getSnapshot())).toBe(true);
    clock.increment(JANITOR_NOTICE_MS - 1);
    expect(selectShowJanitorNotice(actor.getSnapshot())).toBe(true);
    clock.increment(1);
    expect(selectShowJanitorNotice(actor.getSnapshot())).toBe(false);
    expect(JANITOR_NOTICE_MS).toBe(10_000);
  });

  it('hides the janitor alert when dismissed', async () => {
    const { actor } = startEditor('ws-1', { id: 'ws-1', name: 'Lab One' });
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
    const { actor, hub } = startEditor('ws-1', { id: 'ws-1', name: 'Lab One' }, 'u-me');
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
