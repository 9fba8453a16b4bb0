import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DriverError } from '../types';
import { createAgentless } from './agentless';
import { createQemuClipboard } from './clipboard';
import { sidecarOf } from './disks';

// Whether a qemu machine copies out, without booting one: a machine whose image has the vdagent
// device says so without an agent to ask; one that is off copies nothing. (A real machine with
// the agent: tests/server/hypervisor/guestClipboard.test.ts.)

let dir = '';
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tq-clip-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function clipboardOf(base: string | null, running = true) {
  return createQemuClipboard({
    runningAgent: async () => {
      if (!running) throw new DriverError('invalid-state', 'the machine is not running');
      // No agent listens there: asking it would fail.
      return { socket: join(dir, 'no-agent.sock'), base };
    },
    agentless: createAgentless(),
    closing: new AbortController().signal,
  });
}

describe('the clipboard of a qemu machine', () => {
  it("copies both ways through the vdagent when the machine's image has it", async () => {
    const disk = join(dir, 'debian-desktop.qcow2');
    writeFileSync(disk, 'x');
    writeFileSync(sidecarOf(disk, 'devices'), 'vdagent\n');
    expect(await clipboardOf(disk).guestClipboard('m1')).toEqual({ copy: true, via: 'vdagent' });
    expect(await clipboardOf(disk, false).guestClipboard('m1')).toEqual({ copy: false });
  });
});
