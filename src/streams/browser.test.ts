import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import type { HubEventHandler, HubEventSource } from './hub';
import { sessionEvents$, visibilityEvents$, workspaceChanges$ } from './browser';

const scheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));

describe('sessionEvents$', () => {
  it('reports each change of the signed-in state once, starting with the current one', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const authenticated = cold('f-f-t-t-f|', { t: true, f: false });
      expectObservable(sessionEvents$(authenticated)).toBe('e---s---e|', {
        s: { type: 'session.started' },
        e: { type: 'session.ended' },
      });
    });
  });
});

describe('visibilityEvents$', () => {
  it('reports the sidebar opening and closing once per change', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const expanded = cold('f-t-t-f-t|', { t: true, f: false });
      expectObservable(visibilityEvents$(expanded)).toBe('h-s---h-s|', {
        s: { type: 'browser.shown' },
        h: { type: 'browser.hidden' },
      });
    });
  });
});

describe('workspaceChanges$', () => {
  it('reports a change for TOPO.UPDATED and TOPO.DELETED, and detaches when unsubscribed', () => {
    const handlers = new Set<HubEventHandler>();
    const source: HubEventSource = {
      on: (name, handler) => name === 'TopoEvent' && handlers.add(handler),
      off: (_name, handler) => handlers.delete(handler),
    };
    const received: unknown[] = [];
    const invalid: unknown[] = [];
    const subscription = workspaceChanges$(source, { onInvalid: (i) => invalid.push(i) }).subscribe(
      (event) => received.push(event),
    );
    const actor = { id: 'u-1', name: 'Ada' };
    const emit = (payload: unknown) => handlers.forEach((handler) => handler(payload));
    emit({ action: 'TOPO.UPDATED', actor, model: { id: 'ws-1', name: 'Lab' } });
    emit({ action: 'TOPO.DELETED', actor, model: { id: 'ws-1' } });
    emit({ action: 'TOPO.SOMETHING', actor, model: { id: 'ws-1' } });
    expect(received).toEqual([{ type: 'workspaces.changed' }, { type: 'workspaces.changed' }]);
    expect(invalid).toHaveLength(1);
    subscription.unsubscribe();
    expect(handlers.size).toBe(0);
  });
});
