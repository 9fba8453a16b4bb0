import { describe, expect, it } from 'vitest';
import { helpUpdates$, type HelpUpdatedEvent } from './help';
import type { InvalidHubEvent } from './hub';
import { fakeHubSource } from './testing/fakeHubSource';

const actor = { id: 'u-1', name: 'Olga' };
const request = (id: string, gamespaceId = 'gs-1') => ({
  id,
  gamespaceId,
  workspaceId: 'ws-1',
  gamespaceName: 'Lab',
  playerId: 'p-1',
  playerName: 'Ann',
  message: 'Stuck',
  status: 'open',
  raisedAt: '2026-11-30T12:00:00.000Z',
});

describe('helpUpdates$', () => {
  it('passes on the help requests it wants, validated, and nothing else the channel tells', () => {
    const hub = fakeHubSource();
    const seen: HelpUpdatedEvent[] = [];
    const invalid: InvalidHubEvent[] = [];
    const subscription = helpUpdates$(hub.source, (r) => r.gamespaceId === 'gs-1', {
      onInvalid: (e) => invalid.push(e),
    }).subscribe((e) => seen.push(e));
    hub.emit('ObserveEvent', { action: 'HELP.UPDATED', actor, model: request('h-1') });
    hub.emit('ObserveEvent', { action: 'HELP.UPDATED', actor, model: request('h-2', 'gs-2') });
    hub.emit('ObserveEvent', {
      action: 'EVENT.RECORDED',
      actor,
      model: { id: 'e-1', gamespaceId: 'gs-1', kind: 'deploy' },
    });
    hub.emit('ObserveEvent', {
      action: 'HELP.UPDATED',
      actor,
      model: { ...request('h-3'), status: 'lost' },
    });
    expect(seen).toEqual([{ type: 'help.updated', request: request('h-1') }]);
    expect(invalid).toHaveLength(1);
    subscription.unsubscribe();
    expect(hub.attached('ObserveEvent')).toBe(0);
  });
});
