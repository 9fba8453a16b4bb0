import { describe, expect, it } from 'vitest';
import { createActor, fromPromise, SimulatedClock } from 'xstate';
import {
  isWorkspaceSection,
  JANITOR_NOTICE_MS,
  workspaceEditorMachine,
  type WorkspaceHeader,
} from './workspaceEditorMachine';
import {
  selectIsWorkspaceLoading,
  selectShowJanitorNotice,
  selectWorkspaceHeader,
  selectWorkspaceLoadError,
} from './workspaceEditorMachine.selectors';
import { unreachedStateIds } from './testing/reachability';

const flush = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

function startEditor(id: string, outcome: WorkspaceHeader | { reject: unknown }) {
  const clock = new SimulatedClock();
  const loaded: string[] = [];
  let forgotten = 0;
  const actor = createActor(
    workspaceEditorMachine.provide({
      actors: {
        loadWorkspace: fromPromise<WorkspaceHeader, { id: string }>(async ({ input }) => {
          loaded.push(input.id);
          if ('reject' in outcome) throw outcome.reject;
          return outcome;
        }),
      },
      actions: { forgetLastPage: () => forgotten++ },
    }),
    { input: { id }, clock },
  ).start();
  return { actor, clock, loaded, forgotten: () => forgotten };
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
