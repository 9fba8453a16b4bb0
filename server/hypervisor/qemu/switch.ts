// The qemu driver's side of its layer-2 switch (switchd.mjs): start it once per host, detached so
// that it outlives the server, and ask it to attach, move and detach the machines' NICs. The switch
// keeps its own table on disk, so a restarted server finds every port still wired.

import { spawn } from 'node:child_process';
import { existsSync, openSync, closeSync, readFileSync } from 'node:fs';
import { createConnection, type Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DriverError } from '../types';

/** How long a start of the switch may take before the driver reports it unavailable. */
export const SWITCH_START_TIMEOUT_MS = 10_000;
/** How long one control request may take; the switch answers from memory, so this is generous. */
export const SWITCH_REQUEST_TIMEOUT_MS = 5_000;
/** How often a starting or stopping switch is checked on. */
const POLL_MS = 50;

export interface SwitchPort {
  /** The caller's name for the NIC, unique per switch (for example `<vmId>/0`). */
  port: string;
  /** The unix socket QEMU serves the NIC's stream netdev on. */
  path: string;
  /** The isolated network the NIC is in, `{net}#{isolationTag}`; '' for none. */
  segment: string;
  /**
   * Whether the switch holds a connection to the NIC now (false while the machine is off). QEMU
   * may not have accepted it yet (see switchd.mjs); its NETDEV_STREAM_CONNECTED event says so.
   */
  connected: boolean;
}

export interface SwitchClient {
  /** Adds a port, or updates it when it exists; the switch connects as soon as QEMU listens. */
  attach(port: string, path: string, segment: string): Promise<void>;
  /** Puts a port in another segment ('' disconnects it) without touching the machine. */
  move(port: string, segment: string): Promise<void>;
  detach(port: string): Promise<void>;
  list(): Promise<SwitchPort[]>;
  /** Ends the switch process; its table stays on disk for the next start. */
  stop(): Promise<void>;
  /** Closes this client's control connection; the switch keeps running. */
  close(): Promise<void>;
}

type Reply = { ok: true; [key: string]: unknown } | { ok: false; error: string };

/** switchd.mjs in the source tree, also when the server runs bundled from dist-server/. */
export function switchDaemonPath(): string {
  let folder = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(folder, 'package.json'))) {
    const parent = dirname(folder);
    if (parent === folder) throw new Error('no package.json above the server code');
    folder = parent;
  }
  return join(folder, 'server', 'hypervisor', 'qemu', 'switchd.mjs');
}

/** One control connection: requests go out one line each and replies come back in order. */
class ControlConnection {
  private buffered = '';
  private readonly waiting: Array<{
    resolve(reply: Reply): void;
    reject(error: Error): void;
  }> = [];
  closed = false;

  private constructor(private readonly socket: Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      this.buffered += chunk;
      let end: number;
      while ((end = this.buffered.indexOf('\n')) >= 0) {
        const line = this.buffered.slice(0, end);
        this.buffered = this.buffered.slice(end + 1);
        this.waiting.shift()?.resolve(parseReply(line));
      }
    });
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      this.closed = true;
      for (const waiter of this.waiting.splice(0))
        waiter.reject(new Error('the switch closed its control connection'));
    });
  }

  static open(path: string): Promise<ControlConnection> {
    return new Promise((resolve, reject) => {
      const socket = createConnection({ path });
      socket.once('error', reject);
      socket.once('connect', () => {
        socket.off('error', reject);
        resolve(new ControlConnection(socket));
      });
    });
  }

  request(body: Record<string, unknown>): Promise<Reply> {
    if (this.closed) return Promise.reject(new Error('the control connection is closed'));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error('the switch did not answer in time'));
        // Replies are matched by order, so one that never came leaves the rest unmatchable.
        this.socket.destroy();
      }, SWITCH_REQUEST_TIMEOUT_MS);
      this.waiting.push({
        resolve: (reply) => {
          clearTimeout(timer);
          resolve(reply);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      this.socket.write(`${JSON.stringify(body)}\n`);
    });
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      this.socket.once('close', () => resolve());
      this.socket.end();
    });
  }
}

function parseReply(line: string): Reply {
  try {
    const reply: unknown = JSON.parse(line);
    if (reply && typeof reply === 'object' && 'ok' in reply) return reply as Reply;
  } catch {
    // Answered below as a reply that is not one.
  }
  return { ok: false, error: `the switch answered something else: ${line.slice(0, 200)}` };
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A connection to a switch that answers ping, or null when none answers now. */
async function tryConnect(socketPath: string): Promise<ControlConnection | null> {
  let connection: ControlConnection;
  try {
    connection = await ControlConnection.open(socketPath);
  } catch {
    return null;
  }
  try {
    if ((await connection.request({ op: 'ping' })).ok) return connection;
  } catch {
    // Not answering: treated as absent.
  }
  await connection.close();
  return null;
}

/**
 * Starts the switch and waits until it answers. A second switch started at the same time exits
 * on its own (switchd.mjs keeps one per state folder), so concurrent starts are harmless.
 */
async function start(stateDir: string): Promise<ControlConnection> {
  const socketPath = join(stateDir, 'switch.sock');
  const log = openSync(join(stateDir, 'switch.log'), 'a');
  let failure: string | null = null;
  try {
    const child = spawn(process.execPath, [switchDaemonPath(), stateDir], {
      detached: true,
      stdio: ['ignore', log, log],
    });
    child.on('error', (error) => (failure = error.message));
    child.on('exit', (code) => {
      if (code !== 0) failure = `the switch exited with code ${code}`;
    });
    child.unref();
  } finally {
    closeSync(log);
  }
  // Real time, here and in stop(): the switch process takes its own time to start and to exit.
  const deadline = Date.now() + SWITCH_START_TIMEOUT_MS;
  while (Date.now() < deadline && failure === null) {
    const connection = await tryConnect(socketPath);
    if (connection) return connection;
    await delay(POLL_MS);
  }
  throw new DriverError(
    'unavailable',
    `the network switch did not start (${failure ?? 'no answer in time'}); see ${join(stateDir, 'switch.log')}`,
  );
}

/**
 * Whether a process with this pid still runs. A zombie does not: when the server that started the
 * switch has gone, the switch's new parent may be a container's init that never reaps it.
 */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    // The state follows the command name, which is in parentheses and may itself hold spaces.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}

/**
 * A client of the switch of `stateDir`, starting the switch when none answers. The client starts
 * it again when it has died since (its table is on disk), so a request fails only when the switch
 * cannot run at all or refuses the request.
 */
export async function ensureSwitch(stateDir: string): Promise<SwitchClient> {
  const socketPath = join(stateDir, 'switch.sock');
  let current: Promise<ControlConnection> | null = null;

  const connection = (): Promise<ControlConnection> => {
    const open = async () => (await tryConnect(socketPath)) ?? start(stateDir);
    const attempt = (current ?? open()).then((existing) => (existing.closed ? open() : existing));
    current = attempt;
    // A failed start is not remembered: the next request tries again.
    attempt.catch(() => {
      if (current === attempt) current = null;
    });
    return attempt;
  };

  const request = async (body: Record<string, unknown>): Promise<Reply & { ok: true }> => {
    let reply: Reply;
    try {
      reply = await (await connection()).request(body);
    } catch (error) {
      if (error instanceof DriverError) throw error;
      throw new DriverError(
        'unavailable',
        `the network switch failed: ${(error as Error).message}`,
      );
    }
    if (!reply.ok) throw new DriverError('invalid-request', `network switch: ${reply.error}`);
    return reply;
  };

  const close = async () => {
    const open = current;
    current = null;
    if (open) await (await open.catch(() => null))?.close();
  };

  await connection();

  return {
    async attach(port, path, segment) {
      await request({ op: 'attach', port, path, segment });
    },
    async move(port, segment) {
      await request({ op: 'move', port, segment });
    },
    async detach(port) {
      await request({ op: 'detach', port });
    },
    async list() {
      const reply = await request({ op: 'list' });
      return reply.ports as SwitchPort[];
    },
    async stop() {
      const pid = Number.parseInt(readPid(stateDir), 10);
      if (Number.isInteger(pid) && pid > 0 && alive(pid)) {
        process.kill(pid, 'SIGTERM');
        const deadline = Date.now() + SWITCH_START_TIMEOUT_MS;
        while (alive(pid)) {
          if (Date.now() > deadline)
            throw new DriverError('unavailable', `the network switch (pid ${pid}) did not stop`);
          await delay(POLL_MS);
        }
      }
      await close();
    },
    close,
  };
}

function readPid(stateDir: string): string {
  try {
    return readFileSync(join(stateDir, 'switch.pid'), 'utf8');
  } catch {
    return '';
  }
}
