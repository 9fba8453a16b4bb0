import { connect, type Socket } from 'node:net';
import { DriverError } from '../types';

// A client of the QEMU Machine Protocol on a unix socket: JSON lines, a greeting, then
// `qmp_capabilities`, then one command at a time answered by `return` or `error`; events
// (`{"event": ...}`) arrive in between and are handed to the listener. A command is sent on a fresh
// connection each time (QemuMonitor.run) or on a kept one (openMonitor), since a VM's QMP socket
// accepts one client at a time and the driver must never hold it while another process needs it.

export interface QmpEvent {
  event: string;
  data?: Record<string, unknown>;
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/** How long a command may take before the monitor is given up. */
export const QMP_TIMEOUT_MS = 10_000;

export interface QmpConnection {
  execute<T = unknown>(command: string, args?: Record<string, unknown>): Promise<T>;
  close(): void;
  /** Resolves when the socket closes (QEMU exited or the connection was closed). */
  readonly closed: Promise<void>;
}

/** Connects, negotiates capabilities and resolves once commands can be sent. */
export function openQmp(
  path: string,
  onEvent?: (event: QmpEvent) => void,
  timeoutMs = QMP_TIMEOUT_MS,
): Promise<QmpConnection> {
  return new Promise((resolveOpen, rejectOpen) => {
    const socket: Socket = connect(path);
    const queue: Pending[] = [];
    let buffer = '';
    let greeted = false;
    let settled = false;
    let resolveClosed: () => void = () => {};
    const closed = new Promise<void>((r) => (resolveClosed = r));

    const fail = (error: Error) => {
      if (!settled) {
        settled = true;
        rejectOpen(error);
      }
      for (const p of queue.splice(0)) p.reject(error);
      socket.destroy();
    };
    const timer = setTimeout(
      () => fail(new DriverError('unavailable', `QEMU monitor ${path} did not answer`)),
      timeoutMs,
    );

    const send = <T>(command: string, args?: Record<string, unknown>): Promise<T> =>
      new Promise<T>((resolve, reject) => {
        if (socket.destroyed) {
          reject(new DriverError('unavailable', 'the QEMU monitor is closed'));
          return;
        }
        queue.push({ resolve: resolve as (v: unknown) => void, reject });
        socket.write(
          `${JSON.stringify(args ? { execute: command, arguments: args } : { execute: command })}\n`,
        );
      });

    const connection: QmpConnection = {
      execute: send,
      close: () => socket.end(),
      closed,
    };

    const handle = (message: Record<string, unknown>) => {
      if ('QMP' in message) {
        greeted = true;
        send('qmp_capabilities').then(() => {
          clearTimeout(timer);
          settled = true;
          resolveOpen(connection);
        }, fail);
        return;
      }
      if ('event' in message) {
        onEvent?.(message as unknown as QmpEvent);
        return;
      }
      const pending = queue.shift();
      if (!pending) return;
      if ('error' in message) {
        const error = message.error as { class?: string; desc?: string };
        pending.reject(
          new DriverError('invalid-request', error.desc ?? 'QEMU refused the command'),
        );
      } else pending.resolve(message.return);
    };

    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      let newline: number;
      while ((newline = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, newline).trim();
        buffer = buffer.slice(newline + 1);
        if (!line) continue;
        try {
          handle(JSON.parse(line) as Record<string, unknown>);
        } catch {
          // A line that is not JSON is not QMP: ignore it rather than lose the connection.
        }
      }
    });
    socket.on('error', (error: NodeJS.ErrnoException) =>
      fail(new DriverError('unavailable', `QEMU monitor ${path}: ${error.code ?? error.message}`)),
    );
    socket.on('close', () => {
      clearTimeout(timer);
      if (!greeted || !settled) fail(new DriverError('unavailable', 'the QEMU monitor closed'));
      for (const p of queue.splice(0)) p.reject(new DriverError('unavailable', 'QEMU exited'));
      resolveClosed();
    });
  });
}

/** Runs one command on its own connection. */
export async function qmp<T = unknown>(
  path: string,
  command: string,
  args?: Record<string, unknown>,
): Promise<T> {
  const connection = await openQmp(path);
  try {
    return await connection.execute<T>(command, args);
  } finally {
    connection.close();
  }
}

/**
 * The text on a machine's screen while it is in VGA text mode (80×25 at 0xb8000: a character byte
 * and an attribute byte per cell), one string per row: how the tests and the benchmark see that a
 * console shows a prompt, without reading pixels.
 */
export async function screenText(path: string): Promise<string[]> {
  const dump = await qmp<string>(path, 'human-monitor-command', {
    'command-line': 'xp /4000xb 0xb8000',
  });
  const bytes = dump
    .split('\n')
    .flatMap((line) => line.split(':').slice(1).join(':').trim().split(/\s+/))
    .filter(Boolean)
    .map((hex) => parseInt(hex, 16));
  const text = bytes.filter((_, i) => i % 2 === 0).map((code) => String.fromCharCode(code));
  return Array.from({ length: 25 }, (_, row) => text.slice(row * 80, row * 80 + 80).join(''));
}
