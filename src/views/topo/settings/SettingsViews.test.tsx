// @vitest-environment jsdom
import { act, type ReactNode } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it } from 'vitest';
import { createActor, fromPromise, SimulatedClock } from 'xstate';
import { autosaveFormMachine } from '../../../machines/autosaveFormMachine';
import { collaboratorsMachine } from '../../../machines/collaboratorsMachine';
import { COPY_CONFIRMATION_MS, invitationMachine } from '../../../machines/invitationMachine';
import { flush } from '../../../machines/testing/deferred';
import { workspaceActionsMachine } from '../../../machines/workspaceActionsMachine';
import { workspaceSettingsMachine } from '../../../machines/workspaceSettingsMachine';
import { Collaborators } from './Collaborators';
import { Invitation } from './Invitation';
import { SettingsForm } from './SettingsForm';
import { WorkspaceActions } from './WorkspaceActions';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

let root: Root | null = null;
let container: HTMLElement | null = null;

afterEach(() => {
  act(() => root?.unmount());
  container?.remove();
  root = null;
  container = null;
});

async function render(node: ReactNode) {
  container = document.createElement('div');
  document.body.append(container);
  root = createRoot(container);
  await act(async () => root?.render(node));
  const el = container;
  const control = (label: string) => {
    const found = [...el.querySelectorAll('label')].find((l) => l.textContent?.trim() === label);
    const target = found && el.querySelector<HTMLInputElement>(`[id="${found.htmlFor}"]`);
    if (!target) throw new Error(`no control labelled ${label}`);
    return target;
  };
  const button = (name: string) =>
    [...el.querySelectorAll('button')].find((b) => b.textContent?.trim() === name) ?? null;
  const click = async (name: string) => act(async () => button(name)?.click());
  return { el, control, button, click };
}

describe('SettingsForm', () => {
  it('labels every field, shows the id read-only and saves a changed field when it is left', async () => {
    const saves: unknown[] = [];
    const settings = createActor(
      workspaceSettingsMachine.provide({
        actors: {
          form: autosaveFormMachine.provide({
            actors: {
              save: fromPromise<void, unknown>(async ({ input }) => {
                saves.push(input);
              }),
            },
          }),
        },
      }),
      { input: { workspace: { id: 'ws-1', name: 'Workspace Title' } } },
    ).start();
    const view = await render(<SettingsForm settings={settings} />);
    expect(view.el.querySelector('form')?.getAttribute('aria-label')).toBe('Workspace settings');
    expect(view.control('Id').readOnly).toBe(true);
    expect(view.control('Id').value).toBe('ws-1');
    for (const label of [
      'Name',
      'Description',
      'Author',
      'Audience',
      'Tags',
      'Duration (minutes)',
    ]) {
      expect(view.control(label)).toBeTruthy();
    }
    const name = view.control('Name');
    const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')?.set;
    await act(async () => {
      name.focus();
      setter?.call(name, 'Intro Lab');
      name.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await act(async () => name.blur());
    await act(flush);
    expect(saves).toEqual([expect.objectContaining({ id: 'ws-1', name: 'Intro Lab' })]);
    expect(view.el.querySelector('[role="status"]')?.textContent).toBe('Saved');
  });

  it('offers the recording choice with its help, and saves a pick at once', async () => {
    const saves: unknown[] = [];
    const settings = createActor(
      workspaceSettingsMachine.provide({
        actors: {
          form: autosaveFormMachine.provide({
            actors: {
              save: fromPromise<void, unknown>(async ({ input }) => {
                saves.push(input);
              }),
            },
          }),
        },
      }),
      { input: { workspace: { id: 'ws-1', name: 'Lab', recordConsoles: null } } },
    ).start();
    const view = await render(<SettingsForm settings={settings} />);
    const record = view.control('Record consoles') as unknown as HTMLSelectElement;
    expect(record.tagName).toBe('SELECT');
    expect(record.value).toBe('default');
    expect([...record.options].map((o) => o.textContent)).toEqual([
      "The server's default",
      'On',
      'Off',
    ]);
    const hint = view.el.querySelector(`[id="${record.getAttribute('aria-describedby')}"]`);
    expect(hint?.textContent).toBe(
      'Players are told their console is recorded; observers of the audience and administrators may replay it.',
    );
    await act(async () => {
      record.value = 'on';
      record.dispatchEvent(new Event('change', { bubbles: true }));
    });
    await act(flush);
    expect(saves).toEqual([expect.objectContaining({ id: 'ws-1', recordConsoles: true })]);
    expect(record.value).toBe('on');
    expect(view.el.querySelector('[role="status"]')?.textContent).toBe('Saved');
  });
});

describe('Invitation', () => {
  it('generates a link, copies it and confirms for 4 s', async () => {
    const clock = new SimulatedClock();
    const copied: string[] = [];
    const invitation = createActor(
      invitationMachine.provide({
        actors: {
          generateInvitation: fromPromise(async () => ({ code: 'c0de' })),
          copyToClipboard: fromPromise(async ({ input }) => {
            copied.push(input.text);
          }),
        },
      }),
      { clock, input: { workspaceId: 'ws-1', origin: 'https://topoplay.test' } },
    ).start();
    const view = await render(<Invitation invitation={invitation} />);
    expect(view.button('Copy')).toBeNull();
    await view.click('Generate invitation');
    await act(flush);
    expect(view.control('Invitation link').value).toBe(
      'https://topoplay.test/topo/ws-1/invite/c0de',
    );
    await view.click('Copy');
    await act(flush);
    expect(copied).toEqual(['https://topoplay.test/topo/ws-1/invite/c0de']);
    expect(view.el.textContent).toContain('Copied');
    await act(async () => clock.increment(COPY_CONFIRMATION_MS));
    expect(view.el.textContent).not.toContain('Copied');
  });
});

describe('Collaborators', () => {
  it('lists collaborators, offers no Remove for the only manager, and confirms a removal', async () => {
    const removed: unknown[] = [];
    const collaborators = createActor(
      collaboratorsMachine.provide({
        actors: {
          removeWorker: fromPromise(async ({ input }) => {
            removed.push(input);
          }),
        },
      }),
      {
        input: {
          workspaceId: 'ws-1',
          workers: [
            { subjectId: 'u-1', subjectName: 'Creator', permission: 'manager' },
            { subjectId: 'u-2', subjectName: 'Player', permission: 'editor' },
          ],
        },
      },
    ).start();
    const view = await render(<Collaborators collaborators={collaborators} />);
    const items = () => [...view.el.querySelectorAll('ul[aria-label="Collaborators"] > li')];
    expect(items().map((li) => li.textContent)).toEqual([
      'Creator managerCannot be removed: the only manager.',
      'Player editorRemove',
    ]);
    await act(async () => items()[1]?.querySelector('button')?.click());
    expect(
      view.el.querySelector('[role="group"][aria-label="Remove Player from this workspace?"]'),
    ).not.toBeNull();
    await view.click('Confirm');
    await act(flush);
    expect(removed).toEqual([{ workspaceId: 'ws-1', subjectId: 'u-2' }]);
    expect(items()).toHaveLength(1);
  });
});

describe('WorkspaceActions', () => {
  it('offers Clone and Delete, each confirmed, and lists failures in an error box', async () => {
    const actions = createActor(
      workspaceActionsMachine.provide({
        actors: {
          cloneWorkspace: fromPromise<{ id: string }, { workspaceId: string }>(async () => {
            throw { status: 400, message: 'WorkspaceLimitReached' };
          }),
        },
        actions: {
          navigateToWorkspace: () => undefined,
          navigateHome: () => undefined,
          announceWorkspacesChanged: () => undefined,
        },
      }),
      { input: { workspaceId: 'ws-1' } },
    ).start();
    const view = await render(<WorkspaceActions actions={actions} />);
    expect(view.button('Delete')).not.toBeNull();
    await view.click('Clone');
    expect(view.el.querySelector('[aria-label="Clone this workspace?"]')).not.toBeNull();
    await view.click('Confirm');
    await act(flush);
    expect(view.el.querySelector('.tp-error-box[role="alert"]')?.textContent).toContain(
      'You have as many workspaces as you are allowed: delete one before creating another.',
    );
  });
});
