import { connect, type Socket } from 'node:net';
import { vi } from 'vitest';

// The serial port of a running machine as a shell the test types into: QEMU serves the port on a
// unix socket, the tiny image runs a root shell on it. Each command is followed by an echo of a
// marker, and its output is what arrives before the marker: no fixed waits, only conditions.

export interface SerialShell {
  /** Everything the port has printed since the shell was opened. */
  output(): string;
  /** Waits (with a deadline) until the output contains the text. */
  until(text: string | RegExp, timeoutMs?: number): Promise<void>;
  /** Runs a command and resolves with its output and exit status. */
  run(command: string, timeoutMs?: number): Promise<{ output: string; status: number }>;
  close(): void;
}

let sequence = 0;

export async function openSerial(path: string, timeoutMs = 60_000): Promise<SerialShell> {
  const socket = await vi.waitFor(
    () =>
      new Promise<Socket>((resolve, reject) => {
        const s = connect(path);
        s.once('connect', () => resolve(s));
        s.once('error', reject);
      }),
    { timeout: timeoutMs, interval: 100 },
  );
  let text = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (text += chunk));
  socket.on('error', () => socket.destroy());
  // The port drops what the shell printed before anyone listened: a line break asks the shell
  // for its prompt again.
  socket.write('\n');

  const until = async (wanted: string | RegExp, timeout = timeoutMs) => {
    await vi.waitFor(
      () => {
        const found = typeof wanted === 'string' ? text.includes(wanted) : wanted.test(text);
        if (!found)
          throw new Error(`serial output has no ${String(wanted)}:\n${text.slice(-2000)}`);
      },
      { timeout, interval: 50 },
    );
  };

  return {
    output: () => text,
    until,
    async run(command, timeout = 30_000) {
      const marker = `__done_${++sequence}_${Date.now()}__`;
      const from = text.length;
      // The marker is printed with its status; the echoed command line holds it only quoted.
      socket.write(`${command}; echo "${marker}:$?"\n`);
      const pattern = new RegExp(`${marker}:(\\d+)`);
      await vi.waitFor(
        () => {
          if (!pattern.test(text.slice(from).replace(new RegExp(`"${marker}:\\$\\?"`), ''))) {
            throw new Error(`no end of ${command}:\n${text.slice(from).slice(-2000)}`);
          }
        },
        { timeout, interval: 50 },
      );
      const after = text.slice(from).replace(new RegExp(`"${marker}:\\$\\?"`), '');
      const match = pattern.exec(after)!;
      return { output: after.slice(0, match.index), status: Number(match[1]) };
    },
    close: () => socket.destroy(),
  };
}

/** The address the tiny image gives a NIC: 10.{byte 4}.{byte 5}.{byte 6} of its MAC. */
export const tinyAddressOf = (mac: string): string =>
  `10.${mac
    .split(':')
    .slice(3)
    .map((b) => parseInt(b, 16))
    .join('.')}`;
