// @vitest-environment jsdom
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import { autosaveFormMachine } from '../../../machines/autosaveFormMachine';
import { isoChooserMachine } from '../../../machines/isoChooserMachine';
import {
  templateEditorMachine,
  type TemplateEditorInput,
} from '../../../machines/templateEditorMachine';
import { flush } from '../../../machines/testing/deferred';
import { TemplateEditor } from './TemplateEditor';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

let root: Root | null = null;
let container: HTMLElement | null = null;

afterEach(() => {
  act(() => root?.unmount());
  container?.remove();
  root = null;
  container = null;
});

const TEMPLATE: TemplateEditorInput['template'] = {
  id: 't-1',
  name: 'linux-server-123',
  description: '',
  networks: 'lan',
  guestinfo: '',
  iso: '',
  isHidden: false,
  isLinked: true,
  parentId: 'stock-1',
  parentName: 'linux-server',
  replicas: 0,
  variant: 0,
  workspaceId: 'ws-1',
};

async function renderEditor({ deployed = false } = {}) {
  const saves: unknown[] = [];
  const editor = createActor(
    templateEditorMachine.provide({
      actors: {
        form: autosaveFormMachine.provide({
          actors: {
            save: fromPromise<void, unknown>(async ({ input }) => {
              saves.push(input);
            }),
          },
        }),
        isoChooser: isoChooserMachine.provide({
          actors: { listIsos: fromPromise(async () => ['ws-1/tools.iso']) },
        }),
      },
    }),
    { input: { template: TEMPLATE, workspaceId: 'ws-1', deployed } },
  ).start();
  container = document.createElement('div');
  document.body.append(container);
  root = createRoot(container);
  await act(async () => root?.render(<TemplateEditor editor={editor} />));
  const el = container;
  const group = () => el.querySelector<HTMLElement>('[role="group"][aria-label^="Template "]');
  /** The control a label names, as assistive technology finds it. */
  const control = (label: string) => {
    const found = [...el.querySelectorAll('label')].find((l) => l.textContent?.trim() === label);
    const target = found?.htmlFor
      ? el.querySelector<HTMLInputElement>(`[id="${found.htmlFor}"]`)
      : found?.querySelector('input');
    if (!target) throw new Error(`no control labelled ${label}`);
    return target as HTMLInputElement;
  };
  const button = (name: string) =>
    [...el.querySelectorAll('button')].find((b) => b.textContent?.trim() === name) ?? null;
  /** Types into a field as React sees it (the value setter, then an input event), then leaves it. */
  const type = async (label: string, text: string) => {
    const input = control(label);
    const setter = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(input), 'value')?.set;
    await act(async () => {
      input.focus();
      setter?.call(input, text);
      input.dispatchEvent(new Event('input', { bubbles: true }));
    });
  };
  const leave = async (label: string) => act(async () => control(label).blur());
  return { editor, saves, el, group, control, button, type, leave };
}

describe('TemplateEditor', () => {
  it('is a group named after the template, with a labelled control per field', async () => {
    const view = await renderEditor();
    expect(view.group()?.getAttribute('aria-label')).toBe('Template linux-server-123');
    for (const label of [
      'Name',
      'Description',
      'Networks',
      'Guest settings',
      'Replicas',
      'Variant',
      'ISO',
      'Hidden',
    ]) {
      expect(view.control(label)).toBeTruthy();
    }
    expect(view.control('Hidden').type).toBe('checkbox');
    expect(view.button('Unlink')).not.toBeNull();
    expect(view.button('Delete')).not.toBeNull();
    expect(view.button('Re-link')).toBeNull();
  });

  it('explains every value of Replicas: 0 or 1, 2 to 5, and -1', async () => {
    const view = await renderEditor();
    const replicas = view.control('Replicas');
    expect(replicas.value).toBe('0');
    const description = (replicas.getAttribute('aria-describedby') ?? '')
      .split(' ')
      .map((id) => document.getElementById(id)?.textContent ?? '')
      .join(' ');
    expect(description).toBe(
      '0 or 1: one machine. 2 to 5: that many, named name_1, name_2, …. -1: one per player, at most 5.',
    );
  });

  it('shows the name rule, hyphenates as typed and saves when the field is left', async () => {
    const view = await renderEditor();
    await view.type('Name', '');
    await view.leave('Name');
    expect(view.el.textContent).toContain('Please enter a name for this template.');
    expect(view.control('Name').getAttribute('aria-invalid')).toBe('true');
    expect(view.saves).toEqual([]);
    await view.type('Name', 'web server');
    expect(view.control('Name').value).toBe('web-server');
    await view.leave('Name');
    await act(flush);
    expect(view.saves).toEqual([expect.objectContaining({ id: 't-1', name: 'web-server' })]);
  });

  it('saves Hidden as soon as it is toggled', async () => {
    const view = await renderEditor();
    await act(async () => view.control('Hidden').click());
    await act(flush);
    expect(view.saves).toEqual([expect.objectContaining({ isHidden: true })]);
  });

  it("says 'Cannot edit while template is deployed.' and disables the fields while deployed", async () => {
    const view = await renderEditor({ deployed: true });
    expect(view.el.textContent).toContain('Cannot edit while template is deployed.');
    expect(view.control('Name').disabled).toBe(true);
    expect(view.control('ISO').disabled).toBe(true);
    expect(view.button('Unlink')?.disabled).toBe(true);
    expect(view.button('Delete')?.disabled).toBe(true);
  });

  it('asks before deleting', async () => {
    const view = await renderEditor();
    await act(async () => view.button('Delete')?.click());
    const prompt = view.el.querySelector(
      '[role="group"][aria-label="Delete template linux-server-123?"]',
    );
    expect(prompt).not.toBeNull();
    expect(view.button('Confirm')).not.toBeNull();
    await act(async () => view.button('Cancel')?.click());
    expect(view.button('Delete')).not.toBeNull();
  });
});
