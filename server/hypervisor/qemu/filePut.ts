import { createHash } from 'node:crypto';
import { DriverError, type PutFile } from '../types';
import { callAgent, PUT_LINE_CHARS } from './guestAgent';

// Files put into a running qemu machine through Topoplay's guest agent (guestAgent.ts `put-part`,
// `put-end`): the file goes as base64 lines on the agent's serial port, a window of lines per
// call, each window acknowledged with the length the guest has so far, so that no more is on its
// way than the guest's tty buffers hold (the serial driver drops what does not fit). The agent
// answers the file's SHA-256, which must be the one sent.

/**
 * Lines per call: 4 lines of 3 KiB of base64 (9 KiB of the file), far below the 640 KiB the
 * guest's tty buffers hold. Windows of 4 to 32 lines all carried about 7 to 10 KB/s of base64 on
 * the tiny image on a quiet host (its serial port is the limit), so the smallest costs nothing,
 * and each window answers within seconds. On a loaded host a window of 16 lines (48 KiB of
 * base64) once took longer than 30 s.
 */
export const PUT_WINDOW_LINES = 4;
/** How long the agent may take to answer whether it is there. */
export const AGENT_PRESENCE_MS = 5_000;
/** How long one window may take to arrive and be written: 0.2 KB/s of base64 at the least. */
const WINDOW_MS = 60_000;

export interface AgentFilePut {
  /** The machine's agent socket. */
  socket: string;
  name: string;
  bytes: Uint8Array;
  /** Ends the put at once (the driver closing). */
  signal?: AbortSignal;
  /** Overrides AGENT_PRESENCE_MS (tests). */
  presenceMs?: number;
  /** Overrides PUT_WINDOW_LINES (tests). */
  windowLines?: number;
}

const NO_AGENT =
  "The machine's guest agent does not answer: its image has none, or it has not booted yet. " +
  'Files can be put into it once its agent answers, or given to it on an ISO.';

export async function putThroughAgent(put: AgentFilePut): Promise<PutFile> {
  const { socket, name, bytes, signal } = put;
  try {
    await callAgent(socket, {
      line: 'ping',
      answer: 'TOPOPLAY pong',
      timeoutMs: put.presenceMs ?? AGENT_PRESENCE_MS,
      repeatMs: 1_000,
      signal,
    });
  } catch {
    throw new DriverError('unavailable', NO_AGENT);
  }
  const base64 = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
  const lines: string[] = [];
  for (let at = 0; at < base64.length; at += PUT_LINE_CHARS) {
    lines.push(base64.slice(at, at + PUT_LINE_CHARS));
  }
  try {
    let offset = 0;
    let line = 0;
    do {
      const window = lines.slice(line, line + (put.windowLines ?? PUT_WINDOW_LINES));
      const sent = window.reduce((sum, l) => sum + Buffer.byteLength(l, 'base64'), 0);
      const answer = await callAgent(socket, {
        line: [`put-part ${name} ${offset} ${window.length}`, ...window].join('\n'),
        answer: `TOPOPLAY put-part ${name} `,
        timeoutMs: WINDOW_MS,
        signal,
      });
      const size = Number(answer.split(' ').pop());
      if (size !== offset + sent) {
        throw new DriverError(
          'unavailable',
          `the machine received ${size} bytes of ${name} where ${offset + sent} were sent`,
        );
      }
      offset = size;
      line += window.length;
    } while (line < lines.length);
    const end = await callAgent(socket, {
      line: `put-end ${name}`,
      answer: 'TOPOPLAY put-end ',
      timeoutMs: WINDOW_MS,
      signal,
    });
    const [, , sha256 = '', ...path] = end.split(' ');
    const expected = createHash('sha256').update(bytes).digest('hex');
    if (sha256 !== expected) {
      throw new DriverError('unavailable', `${name} arrived damaged in the machine`);
    }
    return { path: path.join(' '), sha256 };
  } catch (error) {
    await callAgent(socket, {
      line: `put-abort ${name}`,
      answer: `TOPOPLAY put-abort ${name}`,
      timeoutMs: 5_000,
    }).catch(() => undefined);
    throw error;
  }
}
