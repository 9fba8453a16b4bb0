// @ts-check
/**
 * The qemu driver's layer-2 switch: one process per host that joins the network cards of running
 * machines into isolated segments, one segment per `{net}#{isolationTag}`, so that machines of one
 * gamespace reach each other and machines of another never do, without root and without touching
 * the host's interfaces.
 *
 * Every machine's NIC is a QEMU stream netdev in server mode on a unix socket. This process
 * connects to each of them as the client and forwards Ethernet frames, each framed as a 4-byte
 * big-endian length followed by the frame (QEMU's stream netdev framing), between the ports of
 * one segment only. QEMU 7.2 drops what a guest sends while no client is connected and accepts a
 * new client once the previous one has closed, so this switch may restart at any time: it
 * restores its port table from `switch.json` and connects again. QEMU notices that close only
 * while it reads the socket, and it stops reading while a frame waits for a NIC whose guest has
 * not enabled receiving (firmware, early boot); until the guest does, the new connection waits in
 * QEMU's backlog, reported here as connected, and frames to that port queue and then drop.
 *
 * Run as `node switchd.mjs <stateDir>`, detached from the server so that it outlives server
 * restarts (server/hypervisor/qemu/switch.ts starts it and talks to it). It imports only `node:*`
 * because it runs outside the server's bundle. The control socket `<stateDir>/switch.sock` takes
 * one JSON request per line and answers one JSON line each:
 * - `{"op":"attach","port":"…","path":"…/nic0.sock","segment":"lan#tag"}`: add or update a port;
 * - `{"op":"move","port":"…","segment":"…"}`: put a port in another segment ('' disconnects it);
 * - `{"op":"detach","port":"…"}`: forget a port and close its connection;
 * - `{"op":"list"}` answers `{"ok":true,"ports":[{port,path,segment,connected}]}`;
 * - `{"op":"ping"}` answers `{"ok":true,"pid":…}`.
 * Failures answer `{"ok":false,"error":"…"}`.
 */

import { readFileSync, renameSync, unlinkSync, writeFileSync, chmodSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { join, isAbsolute } from 'node:path';

/** How long to wait before connecting again to a NIC socket that is absent, refused or closed. */
const RETRY_MS = 1_000;
/** QEMU's stream netdev never sends more (NET_BUFSIZE is 68 KiB); a longer length is garbage. */
const MAX_FRAME = 65_536;
/** A port whose reader is this far behind loses frames, as a congested switch port would. */
const MAX_QUEUED_BYTES = 1 << 20;
/** A control line longer than this is not a request; the connection is closed. */
const MAX_LINE = 64 * 1024;
/** sun_path holds 108 bytes on Linux, the terminating NUL included. */
const MAX_SOCKET_PATH = 107;
const ETHERNET_HEADER = 14;

/**
 * @typedef {object} Port
 * @property {string} name
 * @property {string} path The NIC's unix socket, served by QEMU.
 * @property {string} segment '' when the port belongs to no segment.
 * @property {import('node:net').Socket | null} socket
 * @property {boolean} connected
 * @property {NodeJS.Timeout | null} retry
 * @property {Buffer} pending Bytes received that do not yet make a whole frame.
 * @property {boolean} detached Set once the port is forgotten, so late socket events do nothing.
 */

/** @typedef {{ port: string, path: string, segment: string }} PortRecord */

/** @typedef {{ ok: true } & Record<string, unknown> | { ok: false, error: string }} Reply */

const stateDir = process.argv[2];
if (!stateDir) {
  process.stderr.write('usage: node switchd.mjs <stateDir>\n');
  process.exit(2);
}
const socketPath = join(stateDir, 'switch.sock');
const pidPath = join(stateDir, 'switch.pid');
const tablePath = join(stateDir, 'switch.json');

/** @param {string} message */
const log = (message) => process.stderr.write(`${new Date().toISOString()} ${message}\n`);

/** @type {Map<string, Port>} */
const ports = new Map();
/** @type {Map<string, Set<Port>>} The ports of each segment, so that flooding scans no others. */
const members = new Map();
/**
 * Learned source addresses per segment: MAC (as a 48-bit number) to the port it was seen on.
 * @type {Map<string, Map<number, Port>>}
 */
const learned = new Map();

// ---------------------------------------------------------------------------------------------
// Forwarding.

/**
 * Puts a port into the flooding set of its segment.
 * @param {Port} port
 */
function enter(port) {
  if (port.segment === '') return;
  let set = members.get(port.segment);
  if (!set) members.set(port.segment, (set = new Set()));
  set.add(port);
}

/**
 * Takes a port out of its segment and forgets the addresses learned on it there.
 * @param {Port} port
 */
function leave(port) {
  const set = members.get(port.segment);
  if (set) {
    set.delete(port);
    if (set.size === 0) members.delete(port.segment);
  }
  const table = learned.get(port.segment);
  if (table) {
    for (const [mac, owner] of table) if (owner === port) table.delete(mac);
    if (table.size === 0) learned.delete(port.segment);
  }
}

/**
 * @param {Port} port
 * @param {Buffer} frame
 */
function send(port, frame) {
  const socket = port.socket;
  if (!socket || !port.connected || socket.writableLength > MAX_QUEUED_BYTES) return;
  const header = Buffer.allocUnsafe(4);
  header.writeUInt32BE(frame.length, 0);
  socket.write(Buffer.concat([header, frame]));
}

/**
 * @param {Port} from
 * @param {Buffer} frame
 */
function forward(from, frame) {
  if (from.segment === '' || frame.length < ETHERNET_HEADER) return;
  // The group bit (the lowest bit of the first octet) marks broadcast and multicast addresses;
  // a frame claiming a group source is malformed and must not poison the table.
  if ((frame.readUInt8(6) & 1) === 0) {
    let table = learned.get(from.segment);
    if (!table) learned.set(from.segment, (table = new Map()));
    table.set(frame.readUIntBE(6, 6), from);
  }
  if ((frame.readUInt8(0) & 1) === 0) {
    const owner = learned.get(from.segment)?.get(frame.readUIntBE(0, 6));
    if (owner) {
      if (owner !== from) send(owner, frame);
      return;
    }
  }
  for (const port of members.get(from.segment) ?? []) if (port !== from) send(port, frame);
}

// ---------------------------------------------------------------------------------------------
// NIC connections.

/** @param {Port} port */
function connect(port) {
  port.retry = null;
  if (port.detached) return;
  const socket = createConnection({ path: port.path });
  port.socket = socket;
  port.pending = Buffer.alloc(0);
  socket.on('connect', () => {
    port.connected = true;
    log(`port ${port.name} connected to ${port.path}`);
  });
  socket.on('data', (chunk) => receive(port, socket, chunk));
  // An absent or refused socket is the normal state of a machine that is off: 'close' follows
  // and schedules the next attempt, so the error itself needs no report.
  socket.on('error', () => {});
  socket.on('close', () => {
    if (port.socket !== socket) return;
    if (port.connected) log(`port ${port.name} disconnected`);
    port.socket = null;
    port.connected = false;
    if (!port.detached) port.retry = setTimeout(connect, RETRY_MS, port);
  });
}

/**
 * @param {Port} port
 * @param {import('node:net').Socket} socket
 * @param {Buffer} chunk
 */
function receive(port, socket, chunk) {
  let buffer = port.pending.length ? Buffer.concat([port.pending, chunk]) : chunk;
  while (buffer.length >= 4) {
    const length = buffer.readUInt32BE(0);
    if (length > MAX_FRAME) {
      log(`port ${port.name} sent a frame of ${length} bytes; closing its connection`);
      socket.destroy();
      return;
    }
    if (buffer.length < 4 + length) break;
    forward(port, buffer.subarray(4, 4 + length));
    buffer = buffer.subarray(4 + length);
  }
  // Copy the remainder so that a small tail does not keep a large chunk alive.
  port.pending = Buffer.from(buffer);
}

/** @param {Port} port */
function disconnect(port) {
  if (port.retry) clearTimeout(port.retry);
  port.retry = null;
  const socket = port.socket;
  port.socket = null;
  port.connected = false;
  socket?.destroy();
}

// ---------------------------------------------------------------------------------------------
// The table and its file.

function save() {
  /** @type {PortRecord[]} */
  const records = [...ports.values()].map(({ name, path, segment }) => ({
    port: name,
    path,
    segment,
  }));
  const temp = `${tablePath}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify({ version: 1, ports: records }, null, 2)}\n`);
  renameSync(temp, tablePath);
}

/**
 * Why a record cannot become a port, or null when it can.
 * @param {unknown} port
 * @param {unknown} path
 * @param {unknown} segment
 */
function invalidPort(port, path, segment) {
  if (typeof port !== 'string' || port === '' || port.length > 256)
    return 'port must be a non-empty string of at most 256 characters';
  if (typeof path !== 'string' || !isAbsolute(path)) return 'path must be an absolute path';
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH)
    return `path must be at most ${MAX_SOCKET_PATH} bytes (a unix socket address)`;
  if (typeof segment !== 'string' || segment.length > 256)
    return 'segment must be a string of at most 256 characters';
  return null;
}

/**
 * @param {string} name
 * @param {string} path
 * @param {string} segment
 */
function attach(name, path, segment) {
  const existing = ports.get(name);
  if (existing && existing.path === path) {
    move(existing, segment);
    return;
  }
  if (existing) remove(existing);
  /** @type {Port} */
  const port = {
    name,
    path,
    segment,
    socket: null,
    connected: false,
    retry: null,
    pending: Buffer.alloc(0),
    detached: false,
  };
  ports.set(name, port);
  enter(port);
  connect(port);
}

/**
 * @param {Port} port
 * @param {string} segment
 */
function move(port, segment) {
  if (port.segment === segment) return;
  leave(port);
  port.segment = segment;
  enter(port);
}

/** @param {Port} port */
function remove(port) {
  port.detached = true;
  leave(port);
  disconnect(port);
  ports.delete(port.name);
}

function restore() {
  let text;
  try {
    text = readFileSync(tablePath, 'utf8');
  } catch (error) {
    if (/** @type {NodeJS.ErrnoException} */ (error).code === 'ENOENT') return;
    throw error;
  }
  /** @type {unknown} */
  let table;
  try {
    table = JSON.parse(text);
  } catch {
    log(`${tablePath} is not JSON; starting with no ports`);
    return;
  }
  const records =
    table && typeof table === 'object' && 'ports' in table && Array.isArray(table.ports)
      ? table.ports
      : [];
  for (const record of records) {
    const { port, path, segment } = record ?? {};
    const problem = invalidPort(port, path, segment);
    if (problem) log(`skipping a stored port: ${problem}`);
    else attach(port, path, segment);
  }
  log(`restored ${ports.size} port(s)`);
}

// ---------------------------------------------------------------------------------------------
// Control.

/**
 * @param {unknown} request
 * @returns {Reply}
 */
function handle(request) {
  if (!request || typeof request !== 'object' || Array.isArray(request))
    return { ok: false, error: 'a request is a JSON object' };
  const { op, port: name, path, segment } = /** @type {Record<string, unknown>} */ (request);
  switch (op) {
    case 'ping':
      return { ok: true, pid: process.pid };
    case 'list':
      return {
        ok: true,
        ports: [...ports.values()].map((port) => ({
          port: port.name,
          path: port.path,
          segment: port.segment,
          connected: port.connected,
        })),
      };
    case 'attach': {
      const problem = invalidPort(name, path, segment);
      if (problem) return { ok: false, error: problem };
      attach(
        /** @type {string} */ (name),
        /** @type {string} */ (path),
        /** @type {string} */ (segment),
      );
      save();
      return { ok: true };
    }
    case 'move': {
      const port = typeof name === 'string' ? ports.get(name) : undefined;
      if (!port) return { ok: false, error: `no port ${JSON.stringify(name)}` };
      if (typeof segment !== 'string' || segment.length > 256)
        return { ok: false, error: 'segment must be a string of at most 256 characters' };
      move(port, segment);
      save();
      return { ok: true };
    }
    case 'detach': {
      const port = typeof name === 'string' ? ports.get(name) : undefined;
      if (!port) return { ok: false, error: `no port ${JSON.stringify(name)}` };
      remove(port);
      save();
      return { ok: true };
    }
    default:
      return { ok: false, error: `unknown op ${JSON.stringify(op)}` };
  }
}

/** @param {string} line */
function answer(line) {
  /** @type {unknown} */
  let request;
  try {
    request = JSON.parse(line);
  } catch {
    return { ok: false, error: 'a request is one line of JSON' };
  }
  try {
    return handle(request);
  } catch (error) {
    // The table could not be written (a full disk, a removed folder): the caller must know that
    // the change may not survive a restart.
    log(`request failed: ${String(error)}`);
    return { ok: false, error: String(/** @type {Error} */ (error)?.message ?? error) };
  }
}

const control = createServer((client) => {
  let buffered = '';
  client.setEncoding('utf8');
  client.on('error', () => {});
  client.on('data', (/** @type {string} */ chunk) => {
    buffered += chunk;
    let end;
    while ((end = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, end).trim();
      buffered = buffered.slice(end + 1);
      if (line !== '') client.write(`${JSON.stringify(answer(line))}\n`);
    }
    if (buffered.length > MAX_LINE) {
      client.end(`${JSON.stringify({ ok: false, error: 'request line too long' })}\n`);
      buffered = '';
    }
  });
});

// ---------------------------------------------------------------------------------------------
// One instance per state folder.

/** Whether a switch already answers on the control socket. */
function answering() {
  return new Promise((resolve) => {
    const probe = createConnection({ path: socketPath });
    let reply = '';
    const done = (/** @type {boolean} */ result) => {
      probe.destroy();
      resolve(result);
    };
    probe.setTimeout(2_000, () => done(false));
    probe.on('error', () => done(false));
    probe.on('connect', () => probe.write('{"op":"ping"}\n'));
    probe.on('data', (chunk) => {
      reply += chunk;
      if (reply.includes('\n')) done(reply.startsWith('{"ok":true'));
    });
  });
}

/**
 * Whether a pid is a running switch (not an unrelated process that was given a stale pid).
 * @param {number} pid
 */
function isSwitch(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('switchd');
  } catch {
    return false;
  }
}

/**
 * Takes the pid file, which is the lock that lets only one process remove a stale control socket
 * and listen; a pid file left by a switch that was killed is taken over.
 */
function lock() {
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      writeFileSync(pidPath, `${process.pid}\n`, { flag: 'wx' });
      return true;
    } catch (error) {
      if (/** @type {NodeJS.ErrnoException} */ (error).code !== 'EEXIST') throw error;
    }
    const owner = Number.parseInt(readFileSync(pidPath, 'utf8'), 10);
    if (owner !== process.pid && isSwitch(owner)) return false;
    unlinkSync(pidPath);
  }
  return false;
}

let stopping = false;
function stop() {
  if (stopping) return;
  stopping = true;
  control.close();
  for (const port of ports.values()) {
    port.detached = true;
    disconnect(port);
  }
  try {
    unlinkSync(socketPath);
  } catch {
    // Already gone: nothing to clean.
  }
  try {
    if (Number.parseInt(readFileSync(pidPath, 'utf8'), 10) === process.pid) unlinkSync(pidPath);
  } catch {
    // Already gone: nothing to clean.
  }
  log('stopped');
  process.exit(0);
}

async function main() {
  if (await answering()) {
    log('another switch answers on this state folder; exiting');
    process.exit(0);
  }
  if (!lock()) {
    log('another switch is starting on this state folder; exiting');
    process.exit(0);
  }
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  try {
    unlinkSync(socketPath);
  } catch {
    // No stale socket to remove.
  }
  restore();
  control.on('error', (error) => {
    log(`control socket failed: ${error.message}`);
    stop();
  });
  control.listen(socketPath, () => {
    // Only the server's user may rewire the machines' networks.
    chmodSync(socketPath, 0o600);
    log(`listening on ${socketPath} (pid ${process.pid})`);
  });
}

await main();
