import { BehaviorSubject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { DocumentSourceEvent } from '../machines/documentEditorMachine';
import type { HubEventHandler, HubEventSource } from '../streams/hub';
import { workspaceDocumentEvents$ } from './documentImplementations';

/** A hub whose server events the test sends. */
function fakeHub() {
  const handlers = new Map<string, HubEventHandler[]>();
  const source: HubEventSource = {
    on: (name, handler) => handlers.set(name, [...(handlers.get(name) ?? []), handler]),
    off: (name, handler) =>
      handlers.set(
        name,
        (handlers.get(name) ?? []).filter((h) => h !== handler),
      ),
  };
  const send = (action: string, model: unknown) =>
    handlers
      .get('DocumentEvent')
      ?.forEach((h) => h({ action, actor: { id: 'u-ada', name: 'Ada' }, model }));
  return { source, send };
}

describe('workspaceDocumentEvents$', () => {
  it('passes our updates, saves, cursors and re-joins, and drops reference change records', () => {
    const hub = fakeHub();
    const joined = new BehaviorSubject(true);
    const seen: DocumentSourceEvent[] = [];
    const subscription = workspaceDocumentEvents$(hub.source, joined).subscribe((e) =>
      seen.push(e),
    );
    hub.send('DOCUMENT.UPDATED', { crdt: 'yjs', update: 'AAE=' });
    hub.send('DOCUMENT.UPDATED', { changes: [{ range: {}, text: 'x' }], timestamp: 1 });
    hub.send('DOCUMENT.SAVED', { text: '# Doc', timestamp: 5 });
    hub.send('DOCUMENT.CURSOR', { positions: [{ lineNumber: 1, column: 2 }] });
    joined.next(false);
    joined.next(true);
    subscription.unsubscribe();
    hub.send('DOCUMENT.UPDATED', { crdt: 'yjs', update: 'AAI=' });
    expect(seen).toEqual([
      { type: 'document.updatedRemotely', update: 'AAE=' },
      { type: 'document.savedRemotely', text: '# Doc', timestamp: 5 },
      {
        type: 'document.cursorMovedRemotely',
        actorId: 'u-ada',
        name: 'Ada',
        positions: { positions: [{ lineNumber: 1, column: 2 }] },
      },
      { type: 'hub.reconnected' },
    ]);
  });
});
