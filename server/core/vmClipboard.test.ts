import { describe, expect, it } from 'vitest';
import type { HypervisorDriver, Machine } from '../hypervisor';
import type { Actor } from './actor';
import { Forbidden } from './errors';
import type { GameEventLog, NewGameEvent } from './gameEvents';
import { createVmClipboard } from './vmClipboard';

const GAME = 'a'.repeat(32);
const WORKSPACE = 'b'.repeat(32);
const player = { id: 'p1', name: 'Player One' } as Actor;

const machineOf = (id: string, tag: string, state: Machine['state'] = 'running') =>
  ({ id, name: `box#${tag}`, status: 'deployed', state }) as Machine;

function setup(
  options: {
    copy?: boolean;
    via?: 'agent' | 'vdagent';
    allowed?: boolean;
    readable?: boolean;
  } = {},
) {
  const machines = new Map([
    ['g1', machineOf('g1', GAME)],
    ['w1', machineOf('w1', WORKSPACE)],
    ['off', machineOf('off', GAME, 'off')],
  ]);
  const recorded: NewGameEvent[] = [];
  const events: GameEventLog = {
    record: async (event) => void recorded.push(event),
    list: async () => [],
    removeFor: async () => {},
    subscribe: () => () => {},
  };
  const driver = {
    load: async (id: string) => machines.get(id) ?? null,
    guestClipboard: async () => ({
      copy: options.copy ?? true,
      ...(options.via ? { via: options.via } : {}),
    }),
    ...(options.readable === false ? {} : { readGuestClipboard: async () => 'secret text' }),
  } as unknown as HypervisorDriver;
  const clipboard = createVmClipboard({
    driver,
    mayOpenConsole: async () => options.allowed ?? true,
    mayControlConsole: async () => options.allowed ?? true,
    isGamespace: async (tag) => tag === GAME,
    events,
  });
  return { clipboard, recorded };
}

describe('the console clipboard service', () => {
  it('says a running machine with an agent copies both ways, one without pastes only', async () => {
    expect(await setup().clipboard.capabilities(player, 'g1')).toEqual({ copy: true, paste: true });
    expect(await setup({ copy: false }).clipboard.capabilities(player, 'g1')).toEqual({
      copy: false,
      paste: true,
    });
    expect(await setup().clipboard.capabilities(player, 'off')).toEqual({
      copy: false,
      paste: false,
    });
  });

  it("says how when the driver does: a desktop's vdagent, or the agent", async () => {
    const vdagent = setup({ via: 'vdagent' }).clipboard;
    expect(await vdagent.capabilities(player, 'g1')).toEqual({
      copy: true,
      paste: true,
      via: 'vdagent',
    });
    expect(await setup({ via: 'agent' }).clipboard.capabilities(player, 'g1')).toEqual({
      copy: true,
      paste: true,
      via: 'agent',
    });
    expect(await vdagent.capabilities(player, 'off')).toEqual({ copy: false, paste: false });
  });

  it('copies out and records that it happened on the gamespace, without the text', async () => {
    const { clipboard, recorded } = setup();
    expect(await clipboard.copy(player, 'g1')).toEqual({ text: 'secret text' });
    expect(recorded).toEqual([
      {
        gamespaceId: GAME,
        kind: 'clipboard.copy',
        actorId: 'p1',
        actorName: 'Player One',
        machineId: 'g1',
        machineName: 'box',
      },
    ]);
    expect(JSON.stringify(recorded)).not.toContain('secret');
  });

  it('records a paste on a gamespace machine, and nothing for a workspace machine', async () => {
    const { clipboard, recorded } = setup();
    await clipboard.pasted(player, 'g1');
    await clipboard.pasted(player, 'w1');
    await clipboard.copy(player, 'w1');
    expect(recorded.map((e) => [e.kind, e.machineId])).toEqual([['clipboard.paste', 'g1']]);
  });

  it('refuses whoever may not open the console, and records nothing', async () => {
    const { clipboard, recorded } = setup({ allowed: false });
    await expect(clipboard.capabilities(player, 'g1')).rejects.toBeInstanceOf(Forbidden);
    await expect(clipboard.copy(player, 'g1')).rejects.toBeInstanceOf(Forbidden);
    await expect(clipboard.pasted(player, 'g1')).rejects.toBeInstanceOf(Forbidden);
    expect(recorded).toEqual([]);
  });

  it('refuses a copy where the driver cannot read a guest, and records nothing', async () => {
    const { clipboard, recorded } = setup({ readable: false });
    await expect(clipboard.copy(player, 'g1')).rejects.toThrow(/no clipboard agent/);
    expect(recorded).toEqual([]);
  });
});
