import { describe, expect, it } from 'vitest';
import { machineViewers$, type ConsoleViewersEvent } from './consoleViewers';
import type { HubEventHandler, HubEventSource, InvalidHubEvent } from './hub';

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

const actor = { id: 'u-1', name: 'Ada' };
const ada = { id: 'u-1', name: 'Ada', role: 'observer', control: false };

describe('machineViewers$', () => {
  it("passes on the machine's lists of viewers, no other machine's, and drops invalid ones", () => {
    const hub = fakeSource();
    const seen: ConsoleViewersEvent[] = [];
    const invalid: InvalidHubEvent[] = [];
    const subscription = machineViewers$(hub.source, 'vm-1', {
      onInvalid: (i) => invalid.push(i),
    }).subscribe((event) => seen.push(event));
    const told = (model: unknown, action = 'CONSOLE.VIEWERS') =>
      hub.emit('ConsoleEvent', { action, actor, model });
    told({ id: 'vm-1', viewers: [ada] });
    told({ id: 'vm-2', viewers: [ada] });
    told({ id: 'vm-1', viewers: [{ ...ada, role: 'janitor' }] });
    told({ id: 'vm-1', viewers: [] }, 'CONSOLE.SOMETHING');
    told({ id: 'vm-1', viewers: [] });
    expect(seen).toEqual([
      { type: 'console.viewersChanged', viewers: [ada] },
      { type: 'console.viewersChanged', viewers: [] },
    ]);
    expect(invalid).toHaveLength(2);
    subscription.unsubscribe();
    expect(hub.attached('ConsoleEvent')).toBe(0);
  });
});
