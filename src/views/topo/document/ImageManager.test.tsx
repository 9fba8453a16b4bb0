// @vitest-environment jsdom
import { act, type ReactNode } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it } from 'vitest';
import { createActor, fromCallback, fromPromise } from 'xstate';
import type { DocumentFile } from '../../../domain/documentFiles';
import {
  imageManagerMachine,
  type ImageManagerReport,
} from '../../../machines/imageManagerMachine';
import { deferred, flush, type Deferred } from '../../../machines/testing/deferred';
import { ImageManagerPanel } from './ImageManager';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

let root: Root | null = null;
let container: HTMLElement | null = null;

afterEach(() => {
  act(() => root?.unmount());
  container?.remove();
  root = null;
  container = null;
});

const doc = (filename: string): DocumentFile => ({ filename, url: `/docs/ws-1/${filename}` });

/** The manager with recorded effects: the list answers at once, uploads and deletes on demand. */
function managerLogic(files: DocumentFile[] = [doc('net-ab12.png'), doc('guide-cd34.pdf')]) {
  const lists: string[] = [];
  const uploads: Array<{ name: string; result: Deferred<DocumentFile> }> = [];
  const deletes: Array<{ filename: string; result: Deferred<unknown> }> = [];
  const logic = imageManagerMachine.provide({
    actors: {
      listImages: fromPromise(async ({ input }) => {
        lists.push(input.workspaceId);
        return files;
      }),
      uploadImage: fromPromise(({ input }) => {
        const result = deferred<DocumentFile>();
        uploads.push({ name: input.file.name, result });
        return result.promise;
      }),
      deleteImage: fromPromise(({ input }) => {
        const result = deferred<unknown>();
        deletes.push({ filename: input.filename, result });
        return result.promise;
      }),
    },
  });
  return { logic, lists, uploads, deletes };
}

async function render(node: ReactNode) {
  container = document.createElement('div');
  document.body.append(container);
  root = createRoot(container);
  await act(async () => root?.render(node));
  await act(flush);
  const el = container;
  const button = (name: string) =>
    el.querySelector<HTMLButtonElement>(`button[aria-label="${name}"]`) ??
    [...el.querySelectorAll('button')].find((b) => b.textContent?.trim() === name) ??
    null;
  const click = async (name: string) => {
    const target = button(name);
    if (!target) throw new Error(`no button ${name}`);
    await act(async () => target.click());
    await act(flush);
  };
  const choose = async (...files: File[]) => {
    const input = el.querySelector<HTMLInputElement>('input[type="file"]');
    if (!input) throw new Error('no file input');
    Object.defineProperty(input, 'files', { value: files, configurable: true });
    await act(async () => input.dispatchEvent(new Event('change', { bubbles: true })));
    await act(flush);
  };
  const names = () => [...el.querySelectorAll('.tp-images-name')].map((a) => a.textContent);
  return { el, button, click, choose, names };
}

/** A manager as the document editor runs it; `inserted` is what the editor was asked to insert. */
function startPanel(files?: DocumentFile[]) {
  const effects = managerLogic(files);
  const inserted: string[] = [];
  const reportTo = createActor(
    fromCallback<ImageManagerReport>(({ receive }) =>
      receive((event) => inserted.push(event.markdown)),
    ),
  ).start();
  const manager = createActor(effects.logic, { input: { workspaceId: 'ws-1', reportTo } }).start();
  return { ...effects, manager, inserted };
}

describe('ImageManager', () => {
  it('lists images with a thumbnail and a pdf with an icon', async () => {
    const t = startPanel();
    const view = await render(<ImageManagerPanel manager={t.manager} />);
    expect(view.names()).toEqual(['net-ab12.png', 'guide-cd34.pdf']);
    const [image, pdf] = view.el.querySelectorAll('.tp-images-item');
    expect(image?.querySelector('img')?.getAttribute('src')).toBe('/docs/ws-1/net-ab12.png');
    expect(pdf?.querySelector('img')).toBeNull();
    expect(pdf?.querySelector('[data-icon="file-pdf"]')).not.toBeNull();
  });

  it('offers a multiple file input labelled Upload, with the real limit of 50 MB as its hint', async () => {
    const t = startPanel();
    const view = await render(<ImageManagerPanel manager={t.manager} />);
    const input = view.el.querySelector<HTMLInputElement>('input[type="file"]');
    expect(input?.multiple).toBe(true);
    expect(input?.closest('label')?.textContent?.trim()).toBe('Upload');
    const hint = input && document.getElementById(input.getAttribute('aria-describedby') ?? '');
    expect(hint?.textContent).toBe('Each file under 50 MB');
  });

  it('uploads the chosen files that pass the check, one after another', async () => {
    const t = startPanel([]);
    const view = await render(<ImageManagerPanel manager={t.manager} />);
    await view.choose(
      new File(['x'], 'a.png', { type: 'image/png' }),
      new File(['x'], 'notes.txt', { type: 'text/plain' }),
      new File(['x'], 'b.pdf', { type: 'application/pdf' }),
    );
    expect(t.uploads.map((u) => u.name)).toEqual(['a.png']);
    expect(view.el.querySelector('[role="status"]')?.textContent).toContain('Uploading a.png');
    t.uploads[0]?.result.resolve(doc('a-1.png'));
    await act(flush);
    expect(t.uploads.map((u) => u.name)).toEqual(['a.png', 'b.pdf']);
    expect(view.names()).toEqual(['a-1.png']);
  });

  it('shows a failed upload with its file until dismissed', async () => {
    const t = startPanel([]);
    const view = await render(<ImageManagerPanel manager={t.manager} />);
    await view.choose(new File(['x'], 'a.png', { type: 'image/png' }));
    t.uploads[0]?.result.reject({ status: 400, message: 'InvalidImageType' });
    await act(flush);
    expect(view.el.querySelector('[role="alert"]')?.textContent).toBe('a.png: Invalid Image Type');
    await view.click('Dismiss');
    expect(view.el.querySelector('[role="alert"]')).toBeNull();
  });

  it('hands the markdown of a file to the document editor', async () => {
    const t = startPanel();
    const view = await render(<ImageManagerPanel manager={t.manager} />);
    await view.click('Insert net-ab12.png');
    await view.click('Insert guide-cd34.pdf');
    expect(t.inserted).toEqual([
      '![net-ab12.png](/docs/ws-1/net-ab12.png)',
      '[guide-cd34.pdf](/docs/ws-1/guide-cd34.pdf)',
    ]);
  });

  it('deletes a file only after confirmation', async () => {
    const t = startPanel();
    const view = await render(<ImageManagerPanel manager={t.manager} />);
    await view.click('Delete net-ab12.png');
    expect(view.el.querySelector('[role="group"]')?.getAttribute('aria-label')).toBe(
      'Delete net-ab12.png?',
    );
    await view.click('Cancel');
    expect(t.deletes).toHaveLength(0);
    await view.click('Delete net-ab12.png');
    await view.click('Confirm');
    expect(t.deletes.map((d) => d.filename)).toEqual(['net-ab12.png']);
    t.deletes[0]?.result.resolve(undefined);
    await act(flush);
    expect(view.names()).toEqual(['guide-cd34.pdf']);
  });
});
