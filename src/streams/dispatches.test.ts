import { describe, expect, it } from 'vitest';
import { gamespaceDispatches$, type DispatchRecordEvent } from './dispatches';
import type { InvalidHubEvent } from './hub';
import { fakeHubSource } from './testing/fakeHubSource';

const actor = { id: 'u-1', name: 'Admin' };
const record = (id: string, targetGroup = 'gs-1') => ({
  id,
  trigger: 'hostname',
  targetGroup,
  targetName: 'vm1',
  result: null,
  error: null,
  whenCreated: '2025-01-01T00:00:00Z',
  whenUpdated: '0001-01-01T00:00:00+00:00',
});

describe('gamespaceDispatches$', () => {
  it("passes on the gamespace's created, updated and deleted dispatches, and no other's", () => {
    const hub = fakeHubSource();
    const seen: DispatchRecordEvent[] = [];
    const subscription = gamespaceDispatches$(hub.source, 'gs-1', {
      onInvalid: () => undefined,
    }).subscribe((e) => seen.push(e));
    hub.emit('DispatchEvent', { action: 'DISPATCH.CREATE', actor, model: record('d-1') });
    hub.emit('DispatchEvent', { action: 'DISPATCH.CREATE', actor, model: record('d-2', 'gs-2') });
    hub.emit('dispatchEvent', { action: 'DISPATCH.UPDATE', actor, model: record('d-1') });
    hub.emit('DispatchEvent', {
      action: 'DISPATCH.DELETE',
      actor,
      model: { id: 'd-1', targetGroup: 'gs-1' },
    });
    expect(seen.map((e) => e.type)).toEqual([
      'dispatch.created',
      'dispatch.updated',
      'dispatch.deleted',
    ]);
    expect(seen[0]).toMatchObject({ dispatch: { id: 'd-1', targetName: 'vm1' } });
    expect(seen[2]).toEqual({ type: 'dispatch.deleted', id: 'd-1' });
    subscription.unsubscribe();
    expect(hub.attached('DispatchEvent')).toBe(0);
  });

  it('reports and drops a record that is not a dispatch, and goes on', () => {
    const hub = fakeHubSource();
    const invalid: InvalidHubEvent[] = [];
    const seen: DispatchRecordEvent[] = [];
    gamespaceDispatches$(hub.source, 'gs-1', { onInvalid: (i) => invalid.push(i) }).subscribe((e) =>
      seen.push(e),
    );
    hub.emit('DispatchEvent', {
      action: 'DISPATCH.UPDATE',
      actor,
      model: { ...record('d-1'), trigger: 42 },
    });
    hub.emit('DispatchEvent', { action: 'DISPATCH.UPDATE', actor, model: record('d-3') });
    expect(invalid).toHaveLength(1);
    expect(seen).toHaveLength(1);
  });
});
