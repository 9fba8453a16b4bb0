// @ts-check
/**
 * The switch's ports and what flows between them: the port table, the segments and the addresses
 * learned in each, the connection to each NIC's socket, and the forwarding of frames between the
 * ports of one segment (see switchd.mjs).
 */

import { createConnection } from 'node:net';
import { log } from './log.mjs';

/** How long to wait before connecting again to a NIC socket that is absent, refused or closed. */
const RETRY_MS = 1_000;
/** QEMU's stream netdev never sends more (NET_BUFSIZE is 68 KiB); a longer length is garbage. */
const MAX_FRAME = 65_536;
/** A port whose reader is this far behind loses frames, as a congested switch port would. */
const MAX_QUEUED_BYTES = 1 << 20;
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

/** @type {Map<string, Port>} */
export const ports = new Map();
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
export function disconnect(port) {
  if (port.retry) clearTimeout(port.retry);
  port.retry = null;
  const socket = port.socket;
  port.socket = null;
  port.connected = false;
  socket?.destroy();
}

// ---------------------------------------------------------------------------------------------
// The table.

/**
 * @param {string} name
 * @param {string} path
 * @param {string} segment
 */
export function attach(name, path, segment) {
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
export function move(port, segment) {
  if (port.segment === segment) return;
  leave(port);
  port.segment = segment;
  enter(port);
}

/** @param {Port} port */
export function remove(port) {
  port.detached = true;
  leave(port);
  disconnect(port);
  ports.delete(port.name);
}
