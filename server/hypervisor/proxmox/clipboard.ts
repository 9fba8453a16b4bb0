import type { Clock } from '../../clock';
import { COPY_COMMAND, COPY_FILE, COPY_MAX_BYTES, copiedText } from '../guestClipboard';
import { DriverError, type GuestClipboard } from '../types';
import { PveError, type PveClient } from './client';
import { readGuestFile } from './guestAgent';
import type { OwnVm } from './inventory';
import { pve, vmPath } from './machines';

// Copy out of a machine on a Proxmox cluster (../guestClipboard.ts): PVE's QEMU guest agent reads
// the file the guest's `topoplay-copy` wrote (agent/file-read). Whether a machine can copy is one
// read of the command's first byte: it answers only when the agent runs and the image has the
// command. The answer is kept a while, so that opening a console again does not ask again.

/** How long the console waits for the agent to say whether the guest has the command. */
export const CLIPBOARD_ASK_MS = 3_000;
/** How long a machine that can copy is known to (it runs on; the command stays in its image). */
export const COPY_KNOWN_MS = 60_000;
/** How long a machine that could not is known not to (its agent starts with the guest's OS). */
export const NO_COPY_KNOWN_MS = 10_000;

export interface PveClipboardOptions {
  api: Pick<PveClient, 'get'>;
  /** One of our machines; rejects (not-found) otherwise. */
  ownVm(id: string): Promise<OwnVm>;
  clock: Clock;
}

export function createPveClipboard({ api, ownVm, clock }: PveClipboardOptions) {
  /** Answers by VMID, with when they were given. */
  const known = new Map<number, { at: number; answer: Promise<GuestClipboard> }>();

  /** Whether the guest has the command, false when its agent does not say so in time. */
  function ask(vm: OwnVm): Promise<GuestClipboard> {
    return new Promise<GuestClipboard>((resolve) => {
      const timer = clock.setTimeout(() => resolve({ copy: false }), CLIPBOARD_ASK_MS);
      void readGuestFile(api, vmPath(vm), COPY_COMMAND, 1)
        .then(
          (bytes) => ({ copy: bytes !== null && bytes.length > 0 }),
          () => ({ copy: false }),
        )
        .then((answer) => {
          clock.clearTimeout(timer);
          resolve(answer);
        });
    });
  }

  async function runningVm(id: string): Promise<OwnVm> {
    const vm = await pve(() => ownVm(id));
    if (vm.resource.status !== 'running') {
      throw new DriverError('invalid-state', 'the machine is not running');
    }
    return vm;
  }

  return {
    async guestClipboard(id: string): Promise<GuestClipboard> {
      const vm = await runningVm(id).catch(() => null);
      if (!vm) return { copy: false };
      const vmid = vm.resource.vmid;
      const before = known.get(vmid);
      if (before) {
        const copy = (await before.answer).copy;
        if (clock.now() - before.at < (copy ? COPY_KNOWN_MS : NO_COPY_KNOWN_MS)) {
          return { copy };
        }
      }
      const answer = ask(vm);
      // Answers too old to use go (machines deleted meanwhile are never asked again).
      for (const [other, { at }] of known) {
        if (clock.now() - at >= COPY_KNOWN_MS) known.delete(other);
      }
      known.set(vmid, { at: clock.now(), answer });
      return answer;
    },

    async readGuestClipboard(id: string): Promise<string> {
      const vm = await runningVm(id);
      // One byte more than is copied, so that a character cut at the limit is known to be cut.
      const bytes = await readGuestFile(api, vmPath(vm), COPY_FILE, COPY_MAX_BYTES + 1).catch(
        (error: unknown) => {
          if (error instanceof PveError && error.kind === 'not-found') {
            throw new DriverError('not-found', error.message);
          }
          throw new DriverError(
            'unavailable',
            "The machine's guest agent does not answer: its image has none, or it has not " +
              `booted yet (${error instanceof Error ? error.message : String(error)}).`,
          );
        },
      );
      return bytes ? copiedText(bytes) : '';
    },
  };
}
