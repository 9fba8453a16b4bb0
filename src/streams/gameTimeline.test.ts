import { describe, expect, it } from 'vitest';
import { gamespaceEvents$, type TimelineRecordedEvent } from './gameTimeline';
import type { InvalidHubEvent } from './hub';
import { fakeHubSource } from './testing/fakeHubSource';

const actor = { id: 'u-1', name: 'Ann' };
const event = (id: string, gamespaceId = 'gs-1', kind = 'deploy') => ({
  id,
  gamespaceId,
  kind,
  at: '2026-11-30T14:00:00.000Z',
});

describe('gamespaceEvents$', () => {
  it("passes on the gamespace's recorded events, of any kind, and no other gamespace's", () => {
    const hub = fakeHubSource();
    const seen: TimelineRecordedEvent[] = [];
    const invalid: InvalidHubEvent[] = [];
    const subscription = gamespaceEvents$(hub.source, 'gs-1', {
      onInvalid: (i) => invalid.push(i),
    }).subscribe((e) => seen.push(e));
    const told = (model: unknown, action = 'EVENT.RECORDED') =>
      hub.emit('ObserveEvent', { action, actor, model });
    told(event('e1'));
    told(event('e2', 'gs-2'));
    told(event('e3', 'gs-1', 'help.requested'));
    told({ id: 'h1', gamespaceId: 'gs-1' }, 'HELP.UPDATED');
    told({ id: 'e4', gamespaceId: 'gs-1' });
    expect(seen).toEqual([
      { type: 'timeline.eventRecorded', event: event('e1') },
      { type: 'timeline.eventRecorded', event: event('e3', 'gs-1', 'help.requested') },
    ]);
    expect(invalid).toHaveLength(1);
    subscription.unsubscribe();
    expect(hub.attached('ObserveEvent')).toBe(0);
  });
});
