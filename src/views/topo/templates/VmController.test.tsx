// @vitest-environment jsdom
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it } from 'vitest';
import { createActor, fromEventObservable, fromPromise, SimulatedClock } from 'xstate';
import { isoChooserMachine } from '../../../machines/isoChooserMachine';
import { templateActionsMachine } from '../../../machines/templateActionsMachine';
import {
  DEPLOYED_MESSAGE,
  templateEditorMachine,
  type TemplateEditorInput,
} from '../../../machines/templateEditorMachine';
import { deferred, flush } from '../../../machines/testing/deferred';
import { vmActionsMachine } from '../../../machines/vmActionsMachine';
import {
  REQUEST_DEBOUNCE_MS,
  vmControllerMachine,
  type Vm,
  type VmControllerInput,
  type VmOperation,
} from '../../../machines/vmControllerMachine';
import { vmLoadMachine } from '../../../machines/vmLoadMachine';
import { vmRequestMachine } from '../../../machines/vmRequestMachine';
import { TemplateEditor } from './TemplateEditor';
import { VmController } from './VmController';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

let root: Root | null = null;
let container: HTMLElement | null = null;

afterEach(() => {
  act(() => root?.unmount());
  container?.remove();
  root = null;
  container = null;
});

const TEMPLATE = { id: 'tm-1', name: 'web-01', isLinked: false, workspaceId: 'ws-1' };

const machine = (extra: Partial<Vm>): Vm => ({
  id: 'vm-1',
  name: 'web-01#ws-1',
  status: 'deployed',
  state: 'running',
  task: null,
  hypervisorType: 'proxmox',
  operations: ['start', 'stop', 'save', 'delete', 'reset'],
  ...extra,
});

interface ControllerOptions {
  changeFails?: boolean;
  /** State changes are answered once this settles. */
  hold?: Promise<void>;
}

/** A controller over a server that answers with `loaded`, and records the other requests. */
function controllerOf(loaded: Vm, options: ControllerOptions = {}) {
  const requests: VmOperation[] = [];
  const opened: string[] = [];
  const logic = vmControllerMachine.provide({
    actors: {
      vmLoad: vmLoadMachine.provide({
        actors: {
          loadTemplateMachine: fromPromise(async () => loaded),
          loadVm: fromPromise<Vm | null, { id: string }>(async () => loaded),
        },
      }),
      vmActions: vmActionsMachine.provide({
        actors: {
          vmRequest: vmRequestMachine.provide({
            actors: {
              initializeTemplate: fromPromise(async () => 0),
              deployTemplate: fromPromise(async () => machine({})),
              changeVmState: fromPromise(async ({ input }: { input: VmOperation }) => {
                requests.push(input);
                await options.hold;
                if (options.changeFails)
                  throw { status: 400, message: 'WorkspaceNotIsolated', gamespaces: 2 };
                return machine({ state: input.type === 'stop' ? 'off' : 'running' });
              }),
            },
          }),
        },
      }),
      // The hub stays silent.
      vmEvents: fromEventObservable(() => ({
        subscribe: () => ({ unsubscribe: () => undefined }),
      })),
    },
    actions: { openConsole: (_, { url }) => void opened.push(url) },
  });
  return { logic, requests, opened };
}

async function render(node: React.ReactNode) {
  container = document.createElement('div');
  document.body.append(container);
  root = createRoot(container);
  await act(async () => root?.render(node));
  await act(flush);
  const el = container;
  const button = (name: string) =>
    [...el.querySelectorAll('button')].find(
      (b) => b.getAttribute('aria-label') === name || b.textContent?.trim() === name,
    ) ?? null;
  const click = async (name: string) => {
    const target = button(name);
    if (!target) throw new Error(`no button ${name}`);
    await act(async () => target.click());
  };
  return { el, button, click };
}

async function renderController(
  loaded: Vm,
  input: Partial<VmControllerInput> = {},
  options: ControllerOptions = {},
) {
  const clock = new SimulatedClock();
  const { logic, requests, opened } = controllerOf(loaded, options);
  const controller = createActor(logic, { clock, input: { template: TEMPLATE, ...input } }).start();
  const view = await render(<VmController controller={controller} />);
  /** Lets the click's 300 ms pass and its answer arrive. */
  const settle = async () => {
    await act(async () => clock.increment(REQUEST_DEBOUNCE_MS));
    await act(flush);
  };
  return { ...view, controller, clock, requests, opened, settle };
}

describe('VmController', () => {
  it('offers Initialize for a created machine and shows the copy progress', async () => {
    const view = await renderController(machine({ id: '', status: 'created', state: 'off' }));
    expect(view.el.querySelector('[role="group"]')?.getAttribute('aria-label')).toBe(
      'Machine web-01',
    );
    expect(view.el.textContent).toContain('Not initialized');
    expect(view.button('Deploy')).toBeNull();
    await view.click('Initialize');
    await view.settle();
    const bar = view.el.querySelector('[role="progressbar"]');
    expect(bar?.getAttribute('aria-valuenow')).toBe('0');
    expect(bar?.getAttribute('aria-label')).toBe('Initializing');
    expect(view.el.textContent).toContain('0%');
  });

  it('offers Deploy for an initialized machine', async () => {
    const view = await renderController(machine({ id: '', status: 'initialized', state: 'off' }));
    expect(view.el.textContent).toContain('Not deployed');
    expect(view.button('Initialize')).toBeNull();
    expect(view.button('Deploy')?.disabled).toBe(false);
    expect(view.button('Start')).toBeNull();
  });

  it("shows a running machine's state and buttons, Stop instead of Start", async () => {
    const view = await renderController(machine({}));
    expect(view.el.querySelector('.tp-vm-state')?.textContent).toContain('Running');
    for (const name of ['Refresh', 'Console', 'Stop', 'Save', 'Delete machine']) {
      expect(view.button(name)?.disabled, name).toBe(false);
    }
    expect(view.button('Start')).toBeNull();
    expect(view.button('Revert')).toBeNull();
    await view.click('Stop');
    await view.settle();
    expect(view.requests).toEqual([{ id: 'vm-1', type: 'stop' }]);
    expect(view.el.querySelector('.tp-vm-state')?.textContent).toContain('Off');
    expect(view.button('Start')?.disabled).toBe(false);
  });

  it('shows a spinner and disables the buttons while a request runs', async () => {
    const answer = deferred<void>();
    const view = await renderController(machine({}), {}, { hold: answer.promise });
    expect(view.el.querySelector('[data-icon="spinner"]')).toBeNull();
    await view.click('Stop');
    await act(async () => view.clock.increment(REQUEST_DEBOUNCE_MS));
    expect(view.el.querySelector('[data-icon="spinner"]')).not.toBeNull();
    expect(view.button('Stop')?.disabled).toBe(true);
    answer.resolve();
    await act(flush);
    expect(view.el.querySelector('[data-icon="spinner"]')).toBeNull();
    expect(view.button('Start')?.disabled).toBe(false);
  });

  it('opens the console', async () => {
    const view = await renderController(machine({}));
    await view.click('Console');
    expect(view.opened).toEqual(['/console/vm-1/web-01?f=0&s=ws-1&v=web-01']);
  });

  it('confirms a delete before sending it', async () => {
    const view = await renderController(machine({ state: 'off' }));
    await view.click('Delete machine');
    expect(
      view.el.querySelector('[role="group"][aria-label="Delete machine web-01?"]'),
    ).not.toBeNull();
    await view.click('Cancel');
    await view.settle();
    expect(view.requests).toEqual([]);
    await view.click('Delete machine');
    await view.click('Confirm');
    await view.settle();
    expect(view.requests).toEqual([{ id: 'vm-1', type: 'delete' }]);
  });

  it('asks right after the button that asked, with the focus in the question; Escape cancels and gives the focus back', async () => {
    const view = await renderController(machine({ state: 'off' }));
    const remove = view.button('Delete machine');
    remove?.focus();
    await view.click('Delete machine');
    const prompt = view.el.querySelector('[role="group"][aria-label="Delete machine web-01?"]');
    expect(prompt).not.toBeNull();
    expect(remove?.nextElementSibling).toBe(prompt);
    expect(prompt?.contains(document.activeElement)).toBe(true);
    await act(async () => {
      document.activeElement?.dispatchEvent(
        new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }),
      );
    });
    expect(view.el.querySelector('.tp-confirm')).toBeNull();
    expect(document.activeElement).toBe(view.button('Delete machine'));
    await view.settle();
    expect(view.requests).toEqual([]);
  });

  it('offers Revert where the machine supports it, hides Delete when asked and Save for a linked template', async () => {
    const vsphere = { hypervisorType: 'vsphere', operations: ['start', 'stop', 'revert'] };
    const view = await renderController(machine(vsphere), {
      hideDelete: true,
      template: { ...TEMPLATE, isLinked: true },
    });
    expect(view.button('Revert')?.disabled).toBe(false);
    expect(view.button('Delete machine')).toBeNull();
    expect(view.button('Save')).toBeNull();
    await view.click('Revert');
    expect(view.el.textContent).toContain('Revert machine web-01 to its last saved state?');
  });

  it('shows a failed request as a dismissible danger alert', async () => {
    const view = await renderController(machine({}), {}, { changeFails: true });
    await view.click('Save');
    await view.settle();
    const alert = view.el.querySelector('[role="alert"]');
    expect(alert?.textContent).toContain(
      'Cannot save this machine while 2 gamespaces of this workspace are running.',
    );
    expect(alert?.classList.contains('tp-alert-danger')).toBe(true);
    await view.click('Dismiss');
    expect(view.el.querySelector('[role="alert"]')).toBeNull();
  });
});

describe('TemplateEditor with its machine controller', () => {
  it("locks the editor with 'Cannot edit while template is deployed.' once the machine is deployed", async () => {
    const { logic } = controllerOf(machine({}));
    const editor = createActor(
      templateEditorMachine.provide({
        actors: {
          isoChooser: isoChooserMachine.provide({
            actors: { listIsos: fromPromise(async (): Promise<string[]> => []) },
          }),
          vmController: logic,
        },
      }),
      {
        input: {
          template: { id: 'tm-1', name: 'web-01', isLinked: false, workspaceId: 'ws-1' },
          workspaceId: 'ws-1',
        },
      },
    ).start();
    const view = await render(<TemplateEditor editor={editor} />);
    await act(flush);
    expect(view.el.querySelector('[aria-label="Machine web-01"]')).not.toBeNull();
    expect(view.el.textContent).toContain(DEPLOYED_MESSAGE);
    expect(view.button('Unlink') ?? view.button('Delete')).toBeTruthy();
    expect(view.button('Delete')?.disabled).toBe(true);
  });

  it('offers Initialize once the template is unlinked (its disks are now its own)', async () => {
    let linked = true;
    const logic = vmControllerMachine.provide({
      actors: {
        vmLoad: vmLoadMachine.provide({
          actors: {
            loadTemplateMachine: fromPromise(async () =>
              machine({ id: '', status: linked ? 'initialized' : 'created', state: 'off' }),
            ),
          },
        }),
        vmEvents: fromEventObservable(() => ({
          subscribe: () => ({ unsubscribe: () => undefined }),
        })),
      },
    });
    const template = { id: 'tm-1', name: 'web-01', isLinked: true, workspaceId: 'ws-1' };
    const editor = createActor(
      templateEditorMachine.provide({
        actors: {
          isoChooser: isoChooserMachine.provide({
            actors: { listIsos: fromPromise(async (): Promise<string[]> => []) },
          }),
          actions: templateActionsMachine.provide({
            actors: {
              unlinkTemplate: fromPromise(async (): Promise<TemplateEditorInput['template']> => {
                linked = false;
                return { ...template, isLinked: false };
              }),
            },
          }),
          vmController: logic,
        },
      }),
      { input: { template, workspaceId: 'ws-1' } },
    ).start();
    const view = await render(<TemplateEditor editor={editor} />);
    expect(view.button('Deploy')).not.toBeNull();
    await view.click('Unlink');
    await act(flush);
    expect(view.button('Initialize')).not.toBeNull();
    expect(view.button('Deploy')).toBeNull();
  });
});
