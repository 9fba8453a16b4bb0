// @vitest-environment jsdom
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createActor, fromEventObservable, fromPromise, SimulatedClock } from 'xstate';
import { replicaWithText, stateOf, toBase64 } from '../../../domain/coedit';
import {
  documentEditorMachine,
  WRITABLE_DELAY_MS,
  type DocumentEditorActorRef,
  type DocumentSourceEvent,
} from '../../../machines/documentEditorMachine';
import { documentLogMachine, LOAD_DEBOUNCE_MS } from '../../../machines/documentLogMachine';
import { documentOutboxMachine, SAVED_INDICATOR_MS } from '../../../machines/documentOutboxMachine';
import type { DocumentFile } from '../../../domain/documentFiles';
import type { ImageManagerActorRef } from '../../../machines/imageManagerMachine';
import { imageManagerMachine } from '../../../machines/imageManagerMachine';
import type { WorkspaceEditorActorRef } from '../../../machines/workspaceEditorMachine';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

// Monaco takes seconds to import under jsdom: a stub editor that is ready at once, as Monaco
// reports, and types through the same event.
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

async function renderSection() {
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
            loadCrdt: fromPromise(async () => ({
              update: toBase64(stateOf(replicaWithText('# Guide'))),
            })),
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
  await act(async () => clock.increment(LOAD_DEBOUNCE_MS));
  await flush();
  return { el: container, clock, document, saves };
}

const button = (el: HTMLElement, name: string) =>
  [...el.querySelectorAll('button')].find((b) => b.textContent?.trim() === name) as
    HTMLButtonElement | undefined;

describe('DocumentSection', () => {
  it('enables Save once writable, saves, and flashes Saved', async () => {
    const { el, clock, saves } = await renderSection();
    expect(el.querySelector('[data-testid="document-editor"]')).not.toBeNull();
    expect(button(el, 'Save')?.disabled).toBe(true);
    await act(async () => clock.increment(WRITABLE_DELAY_MS));
    expect(button(el, 'Save')?.disabled).toBe(false);
    await act(async () => button(el, 'Save')?.click());
    await flush();
    expect(saves).toEqual(['# Guide']);
    expect(el.querySelector('[role="status"]')?.textContent).toBe('Saved');
    await act(async () => clock.increment(SAVED_INDICATOR_MS));
    expect(el.querySelector('[role="status"]')?.textContent).toBe('');
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
