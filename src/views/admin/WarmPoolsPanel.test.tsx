// @vitest-environment jsdom
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it } from 'vitest';
import { createActor, fromPromise, SimulatedClock, type Actor } from 'xstate';
import {
  WORKSPACE_SEARCH_DEBOUNCE_MS,
  warmPoolsMachine,
  type WarmPool,
  type WorkspaceMatch,
} from '../../machines/warmPoolsMachine';
import { WarmPoolsPanel } from './WarmPoolsPanel';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const LAB = 'a'.repeat(32);
const WEB = 'b'.repeat(32);

const POOL: WarmPool = {
  workspaceId: LAB,
  workspaceName: 'Coral Lab',
  size: 4,
  target: 6,
  ready: 3,
  warming: 2,
  failed: 1,
  claimedLastHour: 5,
  misses: 7,
  schedules: [],
  unpoolable: null,
};

const MATCHES: WorkspaceMatch[] = [
  { id: LAB, name: 'Coral Lab' },
  { id: WEB, name: 'Coral Web' },
];

let root: Root | undefined;
let actor: Actor<typeof warmPoolsMachine> | undefined;
afterEach(() => {
  act(() => root?.unmount());
  actor?.stop();
  document.body.replaceChildren();
  root = undefined;
  actor = undefined;
});

/**
 * The panel over a machine whose list answers `list` (or is refused with `refusal`), whose
 * workspace search finds MATCHES, and whose saves answer `saved` (or are refused by proxmox).
 */
async function render(
  answer: { list: WarmPool[] } | { refusal: unknown },
  saved?: (request: { workspaceId: string; size: number }) => WarmPool,
) {
  const clock = new SimulatedClock();
  const saves: Array<{ workspaceId: string; size: number }> = [];
  const searches: Array<{ term: string; take: number }> = [];
  actor = createActor(
    warmPoolsMachine.provide({
      actors: {
        listPools: fromPromise<WarmPool[], void>(() =>
          'list' in answer ? Promise.resolve(answer.list) : Promise.reject(answer.refusal),
        ),
        setPoolSize: fromPromise<WarmPool, { workspaceId: string; size: number }>(({ input }) => {
          saves.push(input);
          if (saved) return Promise.resolve(saved(input));
          return Promise.reject({
            status: 400,
            message:
              'InvalidOperation Warm pools need a hypervisor driver that can hand machines ' +
              'from one isolation tag to another; the proxmox driver cannot.',
          });
        }),
        searchWorkspaces: fromPromise<WorkspaceMatch[], { term: string; take: number }>(
          ({ input }) => {
            searches.push(input);
            return Promise.resolve(MATCHES);
          },
        ),
      },
    }),
    { clock },
  ).start();
  const started = actor;
  const container = document.createElement('div');
  document.body.append(container);
  root = createRoot(container);
  act(() => root?.render(<WarmPoolsPanel pools={started} />));
  await settle();
  /** Lets the search's pause pass and its answer arrive. */
  const pause = async () => {
    act(() => clock.increment(WORKSPACE_SEARCH_DEBOUNCE_MS));
    await settle();
  };
  return { container, saves, searches, pause };
}

/** Lets the promise actors answer and React render what they changed. */
const settle = () => act(() => new Promise<void>((resolve) => setTimeout(resolve, 0)));

const cellsOf = (container: HTMLElement) =>
  [...container.querySelectorAll('tbody tr')].map((tr) =>
    [...tr.querySelectorAll('td')].map((td) => td.textContent),
  );

const alerts = (container: HTMLElement) =>
  [...container.querySelectorAll('[role="alert"]')].map((p) => p.textContent);

/** Types into an input as a user does (React listens to the native value setter). */
function type(input: HTMLInputElement, text: string) {
  const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!;
  act(() => {
    setter.call(input, text);
    input.dispatchEvent(new Event('input', { bubbles: true }));
  });
}

const press = (input: HTMLInputElement, key: string) =>
  act(() => {
    input.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true }));
  });

function field(container: HTMLElement, label: string): HTMLInputElement {
  const found = [...container.querySelectorAll('label')].find((l) =>
    l.textContent.startsWith(label),
  );
  const input = found && container.ownerDocument.getElementById(found.htmlFor);
  if (!(input instanceof HTMLInputElement)) throw new Error(`no field ${label}`);
  return input;
}

const hintOf = (input: HTMLInputElement) =>
  input.ownerDocument.getElementById(input.getAttribute('aria-describedby')!.split(' ').at(-1)!)
    ?.textContent;

const options = (container: HTMLElement) => [
  ...container.querySelectorAll<HTMLElement>('[role="listbox"] [role="option"]'),
];

const save = (container: HTMLElement) =>
  act(() => container.querySelector<HTMLButtonElement>('button[type="submit"]')!.click());

describe('WarmPoolsPanel', () => {
  it("says why a pool keeps no set when the hypervisor cannot pool the workspace's machines", async () => {
    const reason = 'The image of the template web has no guest agent.';
    const { container } = await render({
      list: [
        { ...POOL, unpoolable: reason },
        { ...POOL, workspaceId: WEB },
      ],
    });
    const [lab, web] = [...container.querySelectorAll('tbody tr')].map((tr) =>
      tr.querySelector('td')!,
    );
    expect(lab?.querySelector('.tp-pool-unpoolable')?.textContent).toBe(reason);
    expect(web?.querySelector('.tp-pool-unpoolable')).toBeNull();
  });

  it('shows one row per pool by workspace name, its id under it, and its figures', async () => {
    const at = '2026-12-01T09:00:00.000Z';
    const { container } = await render({
      list: [
        POOL,
        { ...POOL, workspaceId: WEB, workspaceName: null, schedules: [{ count: 20, at }] },
      ],
    });
    const table = container.querySelector('table');
    expect(table?.getAttribute('aria-label')).toBe('Warm pools');
    expect([...container.querySelectorAll('thead th')].map((th) => th.textContent)).toEqual([
      'Workspace',
      'Size',
      'Target',
      'Ready',
      'Warming',
      'Claimed in the last hour',
      'Misses',
      'Scheduled',
      'Actions',
    ]);
    expect(cellsOf(container)).toEqual([
      [`Coral Lab${LAB}`, '4', '6', '3', '2', '5', '7', '-', 'Edit size'],
      // A deleted workspace's pool, until its keeper drops it; its scheduled launch.
      [
        `(deleted)${WEB}`,
        '4',
        '6',
        '3',
        '2',
        '5',
        '7',
        `20 at ${new Date(at).toLocaleString()}`,
        'Edit size',
      ],
    ]);
    expect(
      [...container.querySelectorAll('tbody button')].map((b) => b.getAttribute('aria-label')),
    ).toEqual(['Edit the size of Coral Lab', `Edit the size of ${WEB}`]);
    expect(container.textContent).not.toContain('No workspace keeps a warm pool.');
  });

  it('says so when no workspace keeps a pool', async () => {
    const { container } = await render({ list: [] });
    expect(container.querySelector('table')).toBeNull();
    expect(container.querySelector('[role="status"]')?.textContent).toBe(
      'No workspace keeps a warm pool.',
    );
  });

  it("shows the server's message when the list fails, and no empty state", async () => {
    const { container } = await render({ refusal: { status: 403, message: 'ActionForbidden' } });
    expect(alerts(container)).toEqual(['You are not allowed to do this.']);
    expect(container.textContent).not.toContain('No workspace keeps a warm pool.');
  });

  it('explains bad input without sending it, and keeps what was typed', async () => {
    const { container, saves } = await render({ list: [] });
    type(field(container, 'Workspace'), LAB);
    type(field(container, 'Sets to keep ready'), '501');
    save(container);
    expect(saves).toEqual([]);
    expect(alerts(container)).toEqual(['The size must be a whole number from 0 to 500.']);
    const size = field(container, 'Sets to keep ready');
    expect(size.value).toBe('501');
    expect(size.getAttribute('aria-invalid')).toBe('true');
    expect(field(container, 'Workspace').value).toBe(LAB);
  });

  it('asks for a workspace when a name was typed but none picked', async () => {
    const { container, saves } = await render({ list: [] });
    const workspace = field(container, 'Workspace');
    type(workspace, 'Coral');
    type(field(container, 'Sets to keep ready'), '2');
    save(container);
    expect(saves).toEqual([]);
    expect(alerts(container)).toEqual([
      'Choose a workspace: type part of its name and pick it, or paste its id.',
    ]);
    expect(workspace.getAttribute('aria-invalid')).toBe('true');
  });

  it("shows the server's refusal naming the driver, with the form kept", async () => {
    const { container, saves } = await render({ list: [] });
    type(field(container, 'Workspace'), LAB);
    type(field(container, 'Sets to keep ready'), '2');
    save(container);
    await settle();
    expect(saves).toEqual([{ workspaceId: LAB, size: 2 }]);
    expect(alerts(container).join(' ')).toContain('the proxmox driver cannot');
    expect(field(container, 'Sets to keep ready').value).toBe('2');
  });

  it('searches the name typed and offers the matches in a listbox the arrows move through', async () => {
    const { container, searches, pause } = await render({ list: [] });
    const workspace = field(container, 'Workspace');
    expect(workspace.getAttribute('role')).toBe('combobox');
    expect(workspace.getAttribute('aria-expanded')).toBe('false');
    type(workspace, 'C');
    await pause();
    expect(searches).toEqual([]);
    expect(hintOf(workspace)).toBe('Type 2 or more letters of its name, or paste its id.');
    type(workspace, 'Coral');
    await pause();
    expect(searches).toEqual([{ term: 'Coral', take: 8 }]);
    expect(workspace.getAttribute('aria-expanded')).toBe('true');
    const listbox = container.querySelector('[role="listbox"]')!;
    expect(workspace.getAttribute('aria-controls')).toBe(listbox.id);
    expect(listbox.getAttribute('aria-label')).toBe('Workspaces found');
    expect(options(container).map((o) => o.textContent)).toEqual([
      `Coral Lab${LAB}`,
      `Coral Web${WEB}`,
    ]);
    expect(workspace.getAttribute('aria-activedescendant')).toBeNull();
    expect(hintOf(workspace)).toBe('2 found: pick one with the arrow keys and Enter, or click it.');

    press(workspace, 'ArrowDown');
    press(workspace, 'ArrowDown');
    expect(workspace.getAttribute('aria-activedescendant')).toBe(options(container)[1]!.id);
    expect(options(container).map((o) => o.getAttribute('aria-selected'))).toEqual([
      'false',
      'true',
    ]);
    press(workspace, 'Enter');
    expect(workspace.value).toBe('Coral Web');
    expect(workspace.getAttribute('aria-expanded')).toBe('false');
    expect(options(container)).toEqual([]);
    expect(hintOf(workspace)).toBe(`Workspace id ${WEB}`);
  });

  it('picks a match by click, and saves it; the status names the workspace', async () => {
    const { container, saves, pause } = await render({ list: [] }, (request) => ({
      ...POOL,
      workspaceId: request.workspaceId,
      workspaceName: 'Coral Lab',
      size: request.size,
    }));
    const workspace = field(container, 'Workspace');
    type(workspace, 'Coral');
    await pause();
    act(() => options(container)[0]!.click());
    type(field(container, 'Sets to keep ready'), '1');
    save(container);
    await settle();
    expect(saves).toEqual([{ workspaceId: LAB, size: 1 }]);
    expect(container.querySelector('form [role="status"]')?.textContent).toBe(
      'The pool of Coral Lab keeps 1 set ready.',
    );
  });

  it('puts the matches away on Escape, keeping what was typed', async () => {
    const { container, pause } = await render({ list: [] });
    const workspace = field(container, 'Workspace');
    type(workspace, 'Coral');
    await pause();
    press(workspace, 'Escape');
    expect(workspace.getAttribute('aria-expanded')).toBe('false');
    expect(workspace.value).toBe('Coral');
  });

  it("fills the form from a row's Edit size and moves to the size", async () => {
    const { container } = await render({ list: [POOL] });
    act(() => container.querySelector<HTMLButtonElement>('tbody button')!.click());
    const workspace = field(container, 'Workspace');
    expect(workspace.value).toBe('Coral Lab');
    expect(hintOf(workspace)).toBe(`Workspace id ${LAB}`);
    const size = field(container, 'Sets to keep ready');
    expect(size.value).toBe('4');
    expect(document.activeElement).toBe(size);
  });
});
