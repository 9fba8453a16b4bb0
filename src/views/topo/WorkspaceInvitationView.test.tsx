// @vitest-environment jsdom
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, it } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import {
  workspaceInvitationMachine,
  type JoinedWorkspace,
} from '../../machines/workspaceInvitationMachine';
import { WorkspaceInvitationView } from './WorkspaceInvitationView';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

let root: Root | null = null;
let container: HTMLElement | null = null;

afterEach(() => {
  act(() => root?.unmount());
  container?.remove();
  root = null;
  container = null;
});

async function renderRedemption(redeem: () => Promise<JoinedWorkspace>) {
  const invitation = createActor(
    workspaceInvitationMachine.provide({
      actors: { redeemInvitation: fromPromise<JoinedWorkspace, { code: string }>(redeem) },
      actions: { navigateToWorkspace: () => undefined, announceWorkspacesChanged: () => undefined },
    }),
    { input: { code: 'c0de' } },
  ).start();
  container = document.createElement('div');
  document.body.append(container);
  root = createRoot(container);
  await act(async () =>
    root?.render(
      <MemoryRouter>
        <WorkspaceInvitationView invitation={invitation} />
      </MemoryRouter>,
    ),
  );
  return container;
}

describe('WorkspaceInvitationView', () => {
  it('shows Redeeming invitation with a busy indicator while the code is redeemed', async () => {
    const el = await renderRedemption(() => new Promise<JoinedWorkspace>(() => undefined));
    expect(el.querySelector('h1')?.textContent).toBe('Redeeming invitation');
    expect(el.querySelector('[role="status"]')?.getAttribute('aria-label')).toBe(
      'Redeeming invitation',
    );
    expect(el.querySelector('[role="alert"]')).toBeNull();
  });

  it('says the code is invalid when redeeming fails, with a way home', async () => {
    const el = await renderRedemption(async () => {
      throw { status: 400, message: 'InvalidInvitation' };
    });
    expect(el.querySelector('[role="alert"]')?.textContent).toBe('Invalid invitation code.');
    expect(el.querySelector('button')?.textContent).toBe('Continue');
    expect(el.querySelector('[role="status"]')).toBeNull();
  });
});
