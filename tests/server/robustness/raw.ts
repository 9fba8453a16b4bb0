import { connect, type Socket } from 'node:net';
import { expect, vi } from 'vitest';

// A client on a bare TCP socket, for requests no HTTP library sends: headers or bodies that
// trickle, stall or never end, and multipart bodies written byte for byte.

export interface RawClient {
  socket: Socket;
  /** Everything the server sent so far. */
  received(): string;
  /** The status of the first response, or null before it has arrived. */
  status(): number | null;
  /** The first response's body (its framing is not decoded: tests send Connection: close). */
  body(): string;
  /** The server closed the connection (or it failed). */
  closed(): boolean;
  write(data: string | Buffer): void;
  destroy(): void;
}

/** Opens a connection to the server at `url` and waits until it is established. */
export function openRaw(url: string): Promise<RawClient> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let data = '';
    let closed = false;
    socket.on('data', (chunk) => (data += chunk.toString('latin1')));
    socket.on('close', () => (closed = true));
    // A server that drops the connection may reset it; `closed` says so.
    socket.on('error', () => undefined);
    socket.once('connect', () =>
      resolve({
        socket,
        received: () => data,
        status() {
          const match = /^HTTP\/1\.1 (\d{3})/.exec(data);
          return match ? Number(match[1]) : null;
        },
        body: () => {
          const at = data.indexOf('\r\n\r\n');
          return at < 0 ? '' : data.slice(at + 4);
        },
        closed: () => closed,
        write(chunk) {
          if (!socket.destroyed) socket.write(chunk);
        },
        destroy: () => socket.destroy(),
      }),
    );
    socket.once('error', reject);
  });
}

/** A request head; the body (if any) follows it on the same socket. */
export function head(method: string, path: string, headers: Record<string, string | number>) {
  const lines = Object.entries({ host: 'localhost', connection: 'close', ...headers }).map(
    ([name, value]) => `${name}: ${value}`,
  );
  return `${method} ${path} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`;
}

/**
 * Writes `chunk` every `ms`, as a client with more to send would, until stopped (the returned
 * function) or until the test's cleanup clears `timers`.
 */
export function trickle(
  timers: NodeJS.Timeout[],
  client: RawClient,
  chunk: () => string | Buffer,
  ms = 50,
): () => void {
  const timer = setInterval(() => client.write(chunk()), ms);
  timers.push(timer);
  return () => clearInterval(timer);
}

/** Resolves once the server has closed the client's connection; fails after `timeoutMs`. */
export const closedWithin = (client: RawClient, timeoutMs: number) =>
  vi.waitFor(() => expect(client.closed()).toBe(true), { timeout: timeoutMs, interval: 20 });
