// @ts-check
/**
 * The switch's port table on disk (`switch.json` in the state folder), written after every change
 * and read back when the switch starts, so that a restarted switch connects its ports again.
 */

import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { log } from './log.mjs';
import { attach, ports } from './ports.mjs';

/** sun_path holds 108 bytes on Linux, the terminating NUL included. */
const MAX_SOCKET_PATH = 107;

/** @typedef {{ port: string, path: string, segment: string }} PortRecord */

/** @param {string} tablePath */
export function save(tablePath) {
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
export function invalidPort(port, path, segment) {
  if (typeof port !== 'string' || port === '' || port.length > 256)
    return 'port must be a non-empty string of at most 256 characters';
  if (typeof path !== 'string' || !isAbsolute(path)) return 'path must be an absolute path';
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH)
    return `path must be at most ${MAX_SOCKET_PATH} bytes (a unix socket address)`;
  if (typeof segment !== 'string' || segment.length > 256)
    return 'segment must be a string of at most 256 characters';
  return null;
}

/** @param {string} tablePath */
export function restore(tablePath) {
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
