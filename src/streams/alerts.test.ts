import { fakeHubSource } from './testing/fakeHubSource';
import { describe, expect, it } from 'vitest';
import { alertsRaised$, type AlertRaisedEvent } from './alerts';

const actor = { id: 'u-1', name: 'Admin' };
const recorded = (kind: string) => ({
  action: 'EVENT.RECORDED',
  actor,
  model: { id: `e-${kind}`, gamespaceId: 'gs-1', kind, at: '2026-01-01T00:00:00Z' },
});

describe('alertsRaised$', () => {
  it('passes on the alert events observers hear, and nothing else', () => {
    const hub = fakeHubSource();
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
