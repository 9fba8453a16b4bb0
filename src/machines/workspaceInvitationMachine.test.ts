import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromPromise } from 'xstate';
import { workspaceInvitationMachine, type JoinedWorkspace } from './workspaceInvitationMachine';
import {
  selectIsInvitationInvalid,
  selectIsRedeeming,
} from './workspaceInvitationMachine.selectors';
import { deferred } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';

const flush = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

function startInvitation(code: string, outcome: JoinedWorkspace | { reject: unknown }) {
  const redeemed: string[] = [];
  const navigated: string[] = [];
  /** Each time the machine told the app (the sidebar) that the user's workspaces changed. */
  const announcements: string[] = [];
  const actor = createActor(
    workspaceInvitationMachine.provide({
      actors: {
        redeemInvitation: fromPromise<JoinedWorkspace, { code: string }>(async ({ input }) => {
          redeemed.push(input.code);
          if ('reject' in outcome) throw outcome.reject;
          return outcome;
        }),
      },
      actions: {
        navigateToWorkspace: (_, { workspace }) => navigated.push(workspace.id),
        announceWorkspacesChanged: () => announcements.push('changed'),
      },
    }),
    { input: { code } },
  ).start();
  return { actor, redeemed, navigated, announcements };
}

describe('workspaceInvitationMachine', () => {
  it('redeems the code once and opens the joined workspace', async () => {
    const { actor, redeemed, navigated } = startInvitation('c0de', { id: 'ws-1' });
    expect(selectIsRedeeming(actor.getSnapshot())).toBe(true);
    await flush();
    expect(redeemed).toEqual(['c0de']);
    expect(navigated).toEqual(['ws-1']);
    expect(actor.getSnapshot().status).toBe('done');
    expect(selectIsInvitationInvalid(actor.getSnapshot())).toBe(false);
  });

  it('tells the sidebar of the joined workspace, and of nothing when the code is refused', async () => {
    const joined = startInvitation('c0de', { id: 'ws-1' });
    await flush();
    expect(joined.announcements).toEqual(['changed']);
    const refused = startInvitation('bad', {
      reject: { status: 400, message: 'InvalidInvitation' },
    });
    await flush();
    expect(refused.announcements).toEqual([]);
  });

  it('shows the code as invalid when the server refuses it', async () => {
    const { actor, navigated } = startInvitation('bad', {
      reject: { status: 400, message: 'InvalidInvitation' },
    });
    await flush();
    expect(selectIsInvitationInvalid(actor.getSnapshot())).toBe(true);
    expect(selectIsRedeeming(actor.getSnapshot())).toBe(false);
    expect(navigated).toEqual([]);
  });

  it('shows the code as invalid whatever the failure', async () => {
    for (const reject of [
      { status: 0, message: 'Failed to fetch' },
      { status: 403, message: 'ActionForbidden' },
      new Error('boom'),
    ]) {
      const { actor } = startInvitation('c0de', { reject });
      await flush();
      expect(selectIsInvitationInvalid(actor.getSnapshot())).toBe(true);
    }
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(workspaceInvitationMachine, {
        serializeState: (s) => JSON.stringify(s.value),
        inputs: [{ code: 'c0de' }],
      }),
    ).toEqual([]);
  });
});

/** Model-based test: one redemption, answered by the test, and what the page shows after it. */
describe('workspaceInvitationMachine against its model', () => {
  type ModelEvent = { type: 'ACCEPTED' } | { type: 'REFUSED' };

  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'workspaceInvitationModel',
    initial: 'redeeming',
    states: {
      redeeming: { on: { ACCEPTED: 'redeemed', REFUSED: 'invalid' } },
      redeemed: { type: 'final' },
      invalid: { type: 'final' },
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, workspaceInvitationMachine, {
        states: { redeeming: 'redeeming', redeemed: 'redeemed', invalid: 'failed' },
        events: {
          ACCEPTED: 'xstate.done.actor.redeemInvitation',
          REFUSED: 'xstate.error.actor.redeemInvitation',
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
      const answer = deferred<JoinedWorkspace>();
      const navigated: string[] = [];
      const actor = createActor(
        workspaceInvitationMachine.provide({
          actors: { redeemInvitation: fromPromise(() => answer.promise) },
          actions: {
            navigateToWorkspace: (_, { workspace }) => navigated.push(workspace.id),
            announceWorkspacesChanged: () => undefined,
          },
        }),
        { input: { code: 'c0de' } },
      ).start();
      const expectPage = (redeeming: boolean, invalid: boolean, opened: string[]) => () => {
        expect(actor.getSnapshot().status).toBe(opened.length > 0 || invalid ? 'done' : 'active');
        expect(selectIsRedeeming(actor.getSnapshot())).toBe(redeeming);
        expect(selectIsInvitationInvalid(actor.getSnapshot())).toBe(invalid);
        expect(navigated).toEqual(opened);
      };
      await path.test({
        states: {
          redeeming: expectPage(true, false, []),
          // The message stays while the page opens the workspace.
          redeemed: expectPage(true, false, ['ws-1']),
          invalid: expectPage(false, true, []),
        },
        events: {
          ACCEPTED: async () => {
            answer.resolve({ id: 'ws-1' });
            await flush();
          },
          REFUSED: async () => {
            answer.reject({ status: 400, message: 'InvalidInvitation' });
            await flush();
          },
        },
      });
    });
  }
});
