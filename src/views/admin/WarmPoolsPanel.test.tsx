// @vitest-environment jsdom
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it } from 'vitest';
import { createActor, fromPromise, type Actor } from 'xstate';
import { warmPoolsMachine, type WarmPool } from '../../machines/warmPoolsMachine';
import { WarmPoolsPanel } from './WarmPoolsPanel';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const POOL: WarmPool = {
  workspaceId: 'ws-lab',
  size: 4,
  target: 6,
  ready: 3,
  warming: 2,
  failed: 1,
  claimedLastHour: 5,
  misses: 7,
  schedules: [],
};

let root: Root | undefined;
let actor: Actor<typeof warmPoolsMachine> | undefined;
afterEach(() => {
  act(() => root?.unmount());
  actor?.stop();
  root = undefined;
  actor = undefined;
});

/** The panel over a machine whose list answers `list` (or is refused with `refusal`). */
async function render(answer: { list: WarmPool[] } | { refusal: unknown }) {
  const saves: Array<{ workspaceId: string; size: number }> = [];
  actor = createActor(
    warmPoolsMachine.provide({
      actors: {
        listPools: fromPromise<WarmPool[], void>(() =>
          'list' in answer ? Promise.resolve(answer.list) : Promise.reject(answer.refusal),
        ),
        setPoolSize: fromPromise<WarmPool, { workspaceId: string; size: number }>(({ input }) => {
          saves.push(input);
          return Promise.reject({
            status: 400,
            message:
              'InvalidOperation Warm pools need a hypervisor driver that can hand machines ' +
              'from one isolation tag to another; the proxmox driver cannot.',
          });
        }),
      },
    }),
  ).start();
  const started = actor;
  const container = document.createElement('div');
  document.body.append(container);
  root = createRoot(container);
  act(() => root?.render(<WarmPoolsPanel pools={started} />));
  await settle();
  return { container, saves };
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

function field(container: HTMLElement, label: string): HTMLInputElement {
  const found = [...container.querySelectorAll('label')].find((l) =>
    l.textContent.startsWith(label),
  );
  const input = found && container.ownerDocument.getElementById(found.htmlFor);
  if (!(input instanceof HTMLInputElement)) throw new Error(`no field ${label}`);
  return input;
}

const save = (container: HTMLElement) =>
  act(() => container.querySelector<HTMLButtonElement>('button[type="submit"]')!.click());

describe('WarmPoolsPanel', () => {
  it('shows one row per pool with its figures under named columns', async () => {
    const { container } = await render({ list: [POOL, { ...POOL, workspaceId: 'ws-web' }] });
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
    ]);
    expect(cellsOf(container)).toEqual([
      ['ws-lab', '4', '6', '3', '2', '5', '7'],
      ['ws-web', '4', '6', '3', '2', '5', '7'],
    ]);
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
    type(field(container, 'Workspace id'), 'ws-lab');
    type(field(container, 'Sets to keep ready'), '51');
    save(container);
    expect(saves).toEqual([]);
    expect(alerts(container)).toEqual(['The size must be a whole number from 0 to 50.']);
    const size = field(container, 'Sets to keep ready');
    expect(size.value).toBe('51');
    expect(size.getAttribute('aria-invalid')).toBe('true');
    expect(field(container, 'Workspace id').value).toBe('ws-lab');
  });

  it("shows the server's refusal naming the driver, with the form kept", async () => {
    const { container, saves } = await render({ list: [] });
    type(field(container, 'Workspace id'), 'ws-lab');
    type(field(container, 'Sets to keep ready'), '2');
    save(container);
    await settle();
    expect(saves).toEqual([{ workspaceId: 'ws-lab', size: 2 }]);
    expect(alerts(container).join(' ')).toContain('the proxmox driver cannot');
    expect(field(container, 'Sets to keep ready').value).toBe('2');
  });
});
