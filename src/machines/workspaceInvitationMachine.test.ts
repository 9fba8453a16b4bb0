import { describe, expect, it } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import { workspaceInvitationMachine, type JoinedWorkspace } from './workspaceInvitationMachine';
import {
  selectIsInvitationInvalid,
  selectIsRedeeming,
} from './workspaceInvitationMachine.selectors';
import { unreachedStateIds } from './testing/reachability';

const flush = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

function startInvitation(code: string, outcome: JoinedWorkspace | { reject: unknown }) {
  const redeemed: string[] = [];
  const navigated: string[] = [];
  const actor = createActor(
    workspaceInvitationMachine.provide({
      actors: {
        redeemInvitation: fromPromise<JoinedWorkspace, { code: string }>(async ({ input }) => {
          redeemed.push(input.code);
          if ('reject' in outcome) throw outcome.reject;
          return outcome;
        }),
      },
      actions: { navigateToWorkspace: (_, { workspace }) => navigated.push(workspace.id) },
    }),
    { input: { code } },
  ).start();
  return { actor, redeemed, navigated };
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
