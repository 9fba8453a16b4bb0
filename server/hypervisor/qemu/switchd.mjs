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
 * and its own modules in switchd/ because it runs outside the server's bundle: the image copies
 * them beside it. The control socket `<stateDir>/switch.sock` takes one JSON request per line and
 * answers one JSON line each:
 * - `{"op":"attach","port":"…","path":"…/nic0.sock","segment":"lan#tag"}`: add or update a port;
 * - `{"op":"move","port":"…","segment":"…"}`: put a port in another segment ('' disconnects it);
 * - `{"op":"detach","port":"…"}`: forget a port and close its connection;
 * - `{"op":"list"}` answers `{"ok":true,"ports":[{port,path,segment,connected}]}`;
 * - `{"op":"ping"}` answers `{"ok":true,"pid":…}`.
 * Failures answer `{"ok":false,"error":"…"}`.
 */

import { readFileSync, unlinkSync, writeFileSync, chmodSync } from 'node:fs';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { controlServer } from './switchd/control.mjs';
import { log } from './switchd/log.mjs';
import { disconnect, ports } from './switchd/ports.mjs';
import { restore } from './switchd/table.mjs';

const stateDir = process.argv[2];
if (!stateDir) {
  process.stderr.write('usage: node switchd.mjs <stateDir>\n');
  process.exit(2);
}
const socketPath = join(stateDir, 'switch.sock');
const pidPath = join(stateDir, 'switch.pid');
const tablePath = join(stateDir, 'switch.json');

const control = controlServer(tablePath);

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
  restore(tablePath);
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
