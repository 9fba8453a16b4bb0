// @ts-check
/**
 * The switch's control socket: one JSON request per line, one JSON line in answer (the requests
 * are listed in switchd.mjs). Every change to the ports is saved to the table file before the
 * answer goes out.
 */

import { createServer } from 'node:net';
import { log } from './log.mjs';
import { attach, move, ports, remove } from './ports.mjs';
import { invalidPort, save } from './table.mjs';

/** A control line longer than this is not a request; the connection is closed. */
const MAX_LINE = 64 * 1024;

/** @typedef {{ ok: true } & Record<string, unknown> | { ok: false, error: string }} Reply */

/**
 * @param {unknown} request
 * @param {string} tablePath
 * @returns {Reply}
 */
function handle(request, tablePath) {
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
      save(tablePath);
      return { ok: true };
    }
    case 'move': {
      const port = typeof name === 'string' ? ports.get(name) : undefined;
      if (!port) return { ok: false, error: `no port ${JSON.stringify(name)}` };
      if (typeof segment !== 'string' || segment.length > 256)
        return { ok: false, error: 'segment must be a string of at most 256 characters' };
      move(port, segment);
      save(tablePath);
      return { ok: true };
    }
    case 'detach': {
      const port = typeof name === 'string' ? ports.get(name) : undefined;
      if (!port) return { ok: false, error: `no port ${JSON.stringify(name)}` };
      remove(port);
      save(tablePath);
      return { ok: true };
    }
    default:
      return { ok: false, error: `unknown op ${JSON.stringify(op)}` };
  }
}

/**
 * @param {string} line
 * @param {string} tablePath
 */
function answer(line, tablePath) {
  /** @type {unknown} */
  let request;
  try {
    request = JSON.parse(line);
  } catch {
    return { ok: false, error: 'a request is one line of JSON' };
  }
  try {
    return handle(request, tablePath);
  } catch (error) {
    // The table could not be written (a full disk, a removed folder): the caller must know that
    // the change may not survive a restart.
    log(`request failed: ${String(error)}`);
    return { ok: false, error: String(/** @type {Error} */ (error)?.message ?? error) };
  }
}

/**
 * The control server, not yet listening; changes are saved to `tablePath`.
 * @param {string} tablePath
 */
export function controlServer(tablePath) {
  return createServer((client) => {
    let buffered = '';
    client.setEncoding('utf8');
    client.on('error', () => {});
    client.on('data', (/** @type {string} */ chunk) => {
      buffered += chunk;
      let end;
      while ((end = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, end).trim();
        buffered = buffered.slice(end + 1);
        if (line !== '') client.write(`${JSON.stringify(answer(line, tablePath))}\n`);
      }
      if (buffered.length > MAX_LINE) {
        client.end(`${JSON.stringify({ ok: false, error: 'request line too long' })}\n`);
        buffered = '';
      }
    });
  });
}
