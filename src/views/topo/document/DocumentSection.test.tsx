// @vitest-environment jsdom
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createActor, fromEventObservable, fromPromise, SimulatedClock } from 'xstate';
import { replicaWithText, stateOf, toBase64 } from '../../../domain/coedit';
import {
  documentEditorMachine,
  type DocumentEditorActorRef,
  type DocumentSourceEvent,
} from '../../../machines/documentEditorMachine';
import { documentLogMachine } from '../../../machines/documentLogMachine';
import { documentOutboxMachine, SAVED_INDICATOR_MS } from '../../../machines/documentOutboxMachine';
import type { DocumentFile } from '../../../domain/documentFiles';
import type { ImageManagerActorRef } from '../../../machines/imageManagerMachine';
import { imageManagerMachine } from '../../../machines/imageManagerMachine';
import type { WorkspaceEditorActorRef } from '../../../machines/workspaceEditorMachine';
import { deferred } from '../../../machines/testing/deferred';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

// Monaco takes seconds to import under jsdom: a stub editor that is ready at once, as Monaco
// reports (here before the tab says it opened: the machine takes either order).
vi.mock('./MonacoEditor', () => ({
  default: ({ document }: { document: DocumentEditorActorRef }) => {
    document.send({ type: 'editor.ready' });
    return <div data-testid="document-editor" />;
  },
}));
vi.mock('./ImageManager', () => ({
  ImageManagerPanel: ({ manager }: { manager: ImageManagerActorRef }) => (
    <p>Images of {manager.getSnapshot().context.workspaceId}</p>
  ),
}));

let root: Root | null = null;
let container: HTMLElement | null = null;

afterEach(() => {
  act(() => root?.unmount());
  container?.remove();
  root = null;
  container = null;
});

const flush = () => act(() => new Promise<void>((resolve) => setTimeout(resolve, 0)));

const GUIDE = { update: toBase64(stateOf(replicaWithText('# Guide'))) };

/** The section over a document whose log loads when `loaded` settles (at once by default). */
async function renderSection(loaded: Promise<{ update: string }> = Promise.resolve(GUIDE)) {
  const clock = new SimulatedClock();
  const saves: string[] = [];
  const document = createActor(
    documentEditorMachine.provide({
      actors: {
        // No other author: a hub that never sends.
        documentEvents: fromEventObservable<DocumentSourceEvent, { workspaceId: string }>(() => ({
          subscribe: () => ({ unsubscribe: () => undefined }),
        })),
        log: documentLogMachine.provide({
          actors: {
            loadCrdt: fromPromise(() => loaded),
          },
        }),
        outbox: documentOutboxMachine.provide({
          actors: {
            sendEdits: fromPromise(async () => {}),
            saveDocument: fromPromise(async ({ input }) => void saves.push(input.text)),
          },
        }),
        images: imageManagerMachine.provide({
          actors: { listImages: fromPromise(async (): Promise<DocumentFile[]> => []) },
        }),
      },
    }),
    { clock, input: { workspaceId: 'ws-1' } },
  ).start();
  // The section reads only the document child of the workspace editor.
  const workspaceSnapshot = { children: { document } };
  const workspace = {
    getSnapshot: () => workspaceSnapshot,
    subscribe: () => ({ unsubscribe: () => undefined }),
  } as unknown as WorkspaceEditorActorRef;

  const { default: DocumentSection } = await import('./DocumentSection');
  container = window.document.createElement('div');
  window.document.body.append(container);
  const r = createRoot(container);
  root = r;
  await act(async () => r.render(<DocumentSection editor={workspace} />));
  await flush();
  return { el: container, clock, document, saves };
}

const button = (el: HTMLElement, name: string) =>
  [...el.querySelectorAll('button')].find((b) => b.textContent?.trim() === name) as
    HTMLButtonElement | undefined;

const loadingStatus = (el: HTMLElement) =>
  el.querySelector('[role="status"][aria-label="Loading document"]');

describe('DocumentSection', () => {
  it('shows that the document is loading, read-only, until its log is merged', async () => {
    const log = deferred<{ update: string }>();
    const { el, document } = await renderSection(log.promise);
    expect(el.querySelector('[data-testid="document-editor"]')).not.toBeNull();
    expect(loadingStatus(el)).not.toBeNull();
    expect(el.textContent).toContain('Loading document...');
    expect(button(el, 'Save')?.disabled).toBe(true);
    log.resolve(GUIDE);
    await flush();
    expect(loadingStatus(el)).toBeNull();
    expect(el.textContent).not.toContain('Loading document...');
    expect(document.getSnapshot().context.text).toBe('# Guide');
    expect(button(el, 'Save')?.disabled).toBe(false);
  });

  it('enables Save once loaded, saves, and flashes Saved', async () => {
    const { el, clock, saves } = await renderSection();
    expect(el.querySelector('[data-testid="document-editor"]')).not.toBeNull();
    expect(loadingStatus(el)).toBeNull();
    expect(button(el, 'Save')?.disabled).toBe(false);
    await act(async () => button(el, 'Save')?.click());
    await flush();
    expect(saves).toEqual(['# Guide']);
    expect(el.querySelector('[role="status"]')?.textContent).toBe('Saved');
    await act(async () => clock.increment(SAVED_INDICATOR_MS));
    expect(el.querySelector('[role="status"]')?.textContent).toBe('');
  });

  it('warns that the guide shows its ##key## placeholders to players as written', async () => {
    const plain = await renderSection();
    expect(plain.el.querySelector('[role="note"]')).toBeNull();
    act(() => root?.unmount());
    const keyed = { update: toBase64(stateOf(replicaWithText('Log in as ##user## (##pass##).'))) };
    const { el } = await renderSection(Promise.resolve(keyed));
    expect(el.querySelector('[role="note"]')?.textContent).toBe(
      "Players see ##user## ##pass## as written: placeholders are replaced only in the challenge and in templates' guest settings, not in this guide.",
    );
  });

  it('shows the preview of the text and the image manager when toggled', async () => {
    const { el } = await renderSection();
    expect(el.querySelector('[aria-label="Preview"]')).toBeNull();
    await act(async () => button(el, 'Preview')?.click());
    expect(button(el, 'Preview')?.getAttribute('aria-pressed')).toBe('true');
    expect(el.querySelector('[aria-label="Preview"] h1')?.textContent).toBe('Guide');
    await act(async () => button(el, 'Images')?.click());
    expect(button(el, 'Images')?.getAttribute('aria-pressed')).toBe('true');
    expect(el.textContent).toContain('Images of ws-1');
  });
});
