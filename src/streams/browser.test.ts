import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import type { HubEventHandler, HubEventSource } from './hub';
import {
  sessionEvents$,
  userChannelRequests$,
  visibilityEvents$,
  workspaceChanges$,
} from './browser';

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

describe('workspaceChanges$ on the user channel', () => {
  it("reports a change for the user's own TOPO.ADDED and TOPO.REMOVED", () => {
    const handlers = new Set<HubEventHandler>();
    const source: HubEventSource = {
      on: (_name, handler) => handlers.add(handler),
      off: (_name, handler) => handlers.delete(handler),
    };
    const received: unknown[] = [];
    const invalid: unknown[] = [];
    workspaceChanges$(source, { onInvalid: (i) => invalid.push(i) }).subscribe((event) =>
      received.push(event),
    );
    const actor = { id: 'u-1', name: 'Ada' };
    const emit = (payload: unknown) => handlers.forEach((handler) => handler(payload));
    emit({ action: 'TOPO.ADDED', actor, model: { id: 'ws-2', name: 'Copy' } });
    emit({ action: 'TOPO.REMOVED', actor, model: { id: 'ws-1', name: 'Lab' } });
    expect(received).toEqual([{ type: 'workspaces.changed' }, { type: 'workspaces.changed' }]);
    expect(invalid).toEqual([]);
  });
});

describe('userChannelRequests$', () => {
  it("listens on the signed-in user's channel and leaves it when they sign out or change", () => {
    scheduler().run(({ cold, expectObservable }) => {
      const userIds = cold('n-a-a-n-b-c---|', { n: null, a: 'ada', b: 'bob', c: 'cy' });
      expectObservable(userChannelRequests$(userIds)).toBe('--a---l-b-(mc)|', {
        a: { type: 'hub.listenRequested', channelId: 'ada' },
        l: { type: 'hub.leaveRequested', channelId: 'ada' },
        b: { type: 'hub.listenRequested', channelId: 'bob' },
        m: { type: 'hub.leaveRequested', channelId: 'bob' },
        c: { type: 'hub.listenRequested', channelId: 'cy' },
      });
    });
  });
});
