import { describe, expect, it } from 'vitest';
import { machineViewers$, type ConsoleViewersEvent } from './consoleViewers';
import type { InvalidHubEvent } from './hub';
import { fakeHubSource } from './testing/fakeHubSource';

const actor = { id: 'u-1', name: 'Ada' };
const ada = { id: 'u-1', name: 'Ada', role: 'observer', control: false };

describe('machineViewers$', () => {
  it("passes on the machine's lists of viewers, no other machine's, and drops invalid ones", () => {
    const hub = fakeHubSource();
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
