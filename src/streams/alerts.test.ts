import { describe, expect, it } from 'vitest';
import { alertsRaised$, type AlertRaisedEvent } from './alerts';
import type { HubEventHandler, HubEventSource } from './hub';

function fakeSource() {
  const handlers = new Map<string, Set<HubEventHandler>>();
  const source: HubEventSource = {
    on(name, handler) {
      const key = name.toLowerCase();
      handlers.set(key, (handlers.get(key) ?? new Set()).add(handler));
    },
    off(name, handler) {
      handlers.get(name.toLowerCase())?.delete(handler);
    },
  };
  return {
    source,
    emit: (name: string, payload: unknown) =>
      [...(handlers.get(name.toLowerCase()) ?? [])].forEach((handler) => handler(payload)),
    attached: (name: string) => handlers.get(name.toLowerCase())?.size ?? 0,
  };
}

const actor = { id: 'u-1', name: 'Admin' };
const recorded = (kind: string) => ({
  action: 'EVENT.RECORDED',
  actor,
  model: { id: `e-${kind}`, gamespaceId: 'gs-1', kind, at: '2026-01-01T00:00:00Z' },
});

describe('alertsRaised$', () => {
  it('passes on the alert events observers hear, and nothing else', () => {
    const hub = fakeSource();
    const seen: AlertRaisedEvent[] = [];
    const subscription = alertsRaised$(hub.source).subscribe((e) => seen.push(e));
    hub.emit('ObserveEvent', recorded('submission'));
    hub.emit('ObserveEvent', recorded('alert'));
    hub.emit('ObserveEvent', {
      action: 'HELP.UPDATED',
      actor,
      model: { id: 'h-1', kind: 'alert' },
    });
    expect(seen).toEqual([{ type: 'alerts.raised', gamespaceId: 'gs-1' }]);
    subscription.unsubscribe();
    expect(hub.attached('ObserveEvent')).toBe(0);
  });
});
