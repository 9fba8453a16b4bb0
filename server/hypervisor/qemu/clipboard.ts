import { copiedText } from '../guestClipboard';
import { DriverError, type GuestClipboard } from '../types';
import type { Agentless } from './agentless';
import { devicesOf } from './disks';
import {
  CLIPBOARD_ANSWER,
  CLIPBOARD_ANSWER_CHARS,
  callAgent,
  clipboardOf,
  featuresOf,
} from './guestAgent';

// Copy out of a qemu machine (../guestClipboard.ts): Topoplay's guest agent reads the file the
// guest's `topoplay-copy` wrote. Whether it can is what it says after `TOPOPLAY pong`: an older
// image's agent answers the ping without `clipboard`, an image without the agent never answers.
// A machine whose image has spice-vdagent (its `vdagent` device, processes.ts) shares its
// desktop's clipboard with the console itself, both ways: it says so without asking the agent.

/** How long the console waits for the agent to say whether it has the clipboard. */
export const CLIPBOARD_ASK_MS = 5_000;
/**
 * How long a read of the copied text may take: 64 KiB of base64 over the emulated serial port
 * took 2.9 s in a test on a machine without KVM.
 */
export const CLIPBOARD_READ_MS = 15_000;

export interface QemuClipboardOptions {
  /** The agent socket of a running machine; rejects (not-found, invalid-state) otherwise. */
  runningAgent(id: string): Promise<{ socket: string; base: string | null | undefined }>;
  agentless: Agentless;
  /** The driver closed: waits end. */
  closing: AbortSignal;
}

export function createQemuClipboard(options: QemuClipboardOptions) {
  const { agentless, closing } = options;
  return {
    async guestClipboard(id: string): Promise<GuestClipboard> {
      const { socket, base } = await options.runningAgent(id).catch(() => ({
        socket: null,
        base: null,
      }));
      if (!socket) return { copy: false };
      // The image's spice-vdagent and QEMU's vdagent share the clipboard: no agent to ask.
      if (base && (await devicesOf(base)).includes('vdagent'))
        return { copy: true, via: 'vdagent' };
      if (await agentless.has(base)) return { copy: false };
      const pong = await callAgent(socket, {
        line: 'ping',
        answer: 'TOPOPLAY pong',
        timeoutMs: CLIPBOARD_ASK_MS,
        repeatMs: 1_000,
        signal: closing,
      }).catch(() => '');
      return featuresOf(pong).includes('clipboard')
        ? { copy: true, via: 'agent' }
        : { copy: false };
    },

    async readGuestClipboard(id: string): Promise<string> {
      const { socket, base } = await options.runningAgent(id);
      if (await agentless.has(base)) {
        throw new DriverError('unsupported', 'the machine has no guest agent to copy with');
      }
      const answer = await callAgent(socket, {
        line: 'clipboard',
        answer: CLIPBOARD_ANSWER,
        timeoutMs: CLIPBOARD_READ_MS,
        maxAnswerChars: CLIPBOARD_ANSWER_CHARS,
        signal: closing,
      });
      return copiedText(clipboardOf(answer));
    },
  };
}
