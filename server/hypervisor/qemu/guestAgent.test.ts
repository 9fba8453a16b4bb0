import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { callAgent, personalizeLine } from './guestAgent';

// The host's side of the guest agent, against a socket standing in for the machine's serial port.

let dir = '';
let server: Server | null = null;

function port(onLine: (line: string, socket: Socket) => void): string {
  dir = mkdtempSync(join(tmpdir(), 'agent-'));
  const path = join(dir, 'agent.sock');
  server = createServer((socket) => {
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      text += chunk;
      let nl: number;
      while ((nl = text.indexOf('\n')) >= 0) {
        onLine(text.slice(0, nl), socket);
        text = text.slice(nl + 1);
      }
    });
  });
  server.listen(path);
  return path;
}

afterEach(() => {
  server?.close();
  server = null;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('callAgent', () => {
  it('waits for the whole answer line, however it arrives', async () => {
    const path = port((line, socket) => {
      if (!line.startsWith('personalize')) return;
      socket.write('noise\r\nTOPOPLAY personal');
      setTimeout(() => socket.write('ized alpha-client\r\n'), 50);
    });
    const answer = await callAgent(path, {
      line: personalizeLine(),
      answer: 'TOPOPLAY personalized',
      timeoutMs: 5_000,
    });
    expect(answer).toBe('TOPOPLAY personalized alpha-client');
  });

  it('reads an answer that the guest tty put XOFF and XON in front of', async () => {
    // What a tiny guest sent on a loaded host while a file's window filled its input.
    const path = port((line, socket) => {
      if (line.startsWith('put-part')) socket.write('\x13\x11TOPOPLAY put-part tool.bin 9216\n');
    });
    const answer = await callAgent(path, {
      line: 'put-part tool.bin 0 0',
      answer: 'TOPOPLAY put-part tool.bin ',
      timeoutMs: 5_000,
    });
    expect(answer).toBe('TOPOPLAY put-part tool.bin 9216');
  });

  it('repeats its line until the agent answers, and sends the time and 32 random bytes', async () => {
    const seen: string[] = [];
    const path = port((line, socket) => {
      seen.push(line);
      if (seen.length === 3) socket.write('TOPOPLAY pong\n');
    });
    await callAgent(path, {
      line: 'ping',
      answer: 'TOPOPLAY pong',
      timeoutMs: 5_000,
      repeatMs: 20,
    });
    expect(seen.slice(0, 3)).toEqual(['ping', 'ping', 'ping']);
    expect(personalizeLine()).toMatch(/^personalize \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d [0-9a-f]{64}$/);
    expect(personalizeLine()).not.toBe(personalizeLine());
  });

  it('takes turns with the other calls on the socket, the wait counted in its deadline', async () => {
    // QEMU's socket serves one client at a time: lines of two connections must not interleave.
    const connections = new WeakMap<Socket, number>();
    let count = 0;
    const seen: { line: string; connection: number }[] = [];
    const path = port((line, socket) => {
      if (!connections.has(socket)) connections.set(socket, count++);
      seen.push({ line, connection: connections.get(socket)! });
      const pings = seen.filter((s) => s.connection === connections.get(socket)).length;
      if (line === 'ping' && pings >= 3) socket.write('TOPOPLAY pong\n');
      if (line.startsWith('settings')) socket.write('TOPOPLAY settings 1\n');
    });
    const ping = { line: 'ping', answer: 'TOPOPLAY pong', timeoutMs: 5_000, repeatMs: 20 };
    const answers = await Promise.all([
      callAgent(path, ping),
      callAgent(path, ping),
      callAgent(path, {
        line: 'settings a2V5PXZhbHVl',
        answer: 'TOPOPLAY settings',
        timeoutMs: 5_000,
      }),
    ]);
    expect(answers).toEqual(['TOPOPLAY pong', 'TOPOPLAY pong', 'TOPOPLAY settings 1']);
    const order = seen.map((s) => s.connection);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(seen.at(-1)?.line).toBe('settings a2V5PXZhbHVl');

    // A call whose turn does not come before its deadline fails at the deadline.
    const hold = callAgent(path, { line: 'hold', answer: 'never', timeoutMs: 1_000 });
    await expect(
      callAgent(path, { line: 'ping', answer: 'TOPOPLAY pong', timeoutMs: 200 }),
    ).rejects.toThrow('did not answer ping');
    await expect(hold).rejects.toThrow('did not answer hold');
  });

  it('gives up at once when it is stopped, and at its deadline when nobody answers', async () => {
    const path = port(() => {});
    const stop = new AbortController();
    const waiting = callAgent(path, {
      line: 'ping',
      answer: 'TOPOPLAY pong',
      timeoutMs: 60_000,
      signal: stop.signal,
    });
    stop.abort();
    await expect(waiting).rejects.toThrow('stopped');
    await expect(
      callAgent(path, { line: 'ping', answer: 'TOPOPLAY pong', timeoutMs: 200 }),
    ).rejects.toThrow('did not answer ping');
  });
});
