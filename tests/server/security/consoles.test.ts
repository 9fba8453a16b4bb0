import { once } from 'node:events';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import {
  addressCapReason,
  HANDSHAKE_TIMEOUT_REASON,
  userCapReason,
} from '../../../server/console/limits';
import { apiRequest } from '../api';
import { labServer } from './lab';

// Console sockets cannot be used to run the server out of memory (issue: "Security, round two"):
// a viewer that never answers the RFB greeting costs no screen buffer and is closed at the
// handshake's deadline; a player holds at most its cap of consoles and hears why when over it,
// while others still get in; the per-address cap holds behind a trusted proxy, on the forwarded
// address. The real server with the sim driver, viewers over `ws` as noVNC connects.

const CAP = 8;
const HANDSHAKE_MS = 1_500;
/** Far more sockets than the cap: each cost a 1.5 MiB screen buffer before the greeting once. */
const FLOOD = 150;

/** A console socket and what it received, until it closed. */
function viewer(url: string, headers: Record<string, string> = {}) {
  const socket = new WebSocket(url, ['binary'], { headers });
  let buffered = Buffer.alloc(0);
  const state = {
    socket,
    closed: new Promise<{ code: number; reason: string }>((resolve) =>
      socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    ),
    async read(n: number): Promise<Buffer> {
      while (buffered.length < n) {
        if (socket.readyState >= WebSocket.CLOSING) throw new Error('closed while reading');
        await Promise.race([once(socket, 'message'), state.closed]);
      }
      const out = buffered.subarray(0, n);
      buffered = buffered.subarray(n);
      return out;
    },
    /** Sends the version; the list of security types, or the reason when it is empty. */
    async greet(): Promise<string | null> {
      await state.read(12);
      socket.send(Buffer.from('RFB 003.008\n', 'latin1'));
      const count = (await state.read(1))[0]!;
      if (count > 0) {
        await state.read(count);
        return null;
      }
      const length = (await state.read(4)).readUInt32BE(0);
      return (await state.read(length)).toString('utf8');
    },
    /** The whole handshake; resolves with the ServerInit's width. */
    async handshake(): Promise<number> {
      expect(await state.greet()).toBeNull();
      socket.send(Buffer.of(1));
      await state.read(4);
      socket.send(Buffer.of(1));
      return (await state.read(24)).readUInt16BE(0);
    },
  };
  socket.on('message', (data: Buffer) => {
    buffered = Buffer.concat([buffered, data]);
  });
  socket.on('error', () => undefined);
  return state;
}

type Viewer = ReturnType<typeof viewer>;

describe('console sockets', () => {
  let lab: Awaited<ReturnType<typeof labServer>>;
  const open: Viewer[] = [];

  beforeAll(async () => {
    lab = await labServer({
      CONSOLE_MAX_PER_USER: String(CAP),
      CONSOLE_HANDSHAKE_TIMEOUT_MS: String(HANDSHAKE_MS),
    });
  }, 60_000);

  afterEach(() => {
    for (const v of open.splice(0)) v.socket.terminate();
  });

  afterAll(async () => {
    await lab?.server.close();
  });

  it('costs no screen buffer for a flood that never answers, which is closed at the deadline', async () => {
    const warm = viewer(await lab.consoleUrl('player'));
    open.push(warm);
    expect(await warm.handshake()).toBeGreaterThan(0);
    warm.socket.terminate();
    await warm.closed;

    const before = process.memoryUsage().arrayBuffers;
    const urls: string[] = [];
    for (let i = 0; i < FLOOD; i++) urls.push(await lab.consoleUrl('player'));
    const silent = urls.map((url) => viewer(url));
    open.push(...silent);
    // Every socket has been greeted: the server has done all it will do for them.
    await Promise.all(silent.map((v) => v.read(12)));
    const grown = process.memoryUsage().arrayBuffers - before;
    // Before, each greeted socket held a 1.5 MiB screen buffer: 225 MiB for this flood.
    expect(grown).toBeLessThan(32 * 1024 * 1024);

    // Meanwhile the player is over its cap and told so; an administrator still gets in.
    const extra = viewer(await lab.consoleUrl('player'));
    open.push(extra);
    expect(await extra.greet()).toBe(userCapReason(CAP));
    expect(await extra.closed).toEqual({ code: 1008, reason: userCapReason(CAP) });
    const admin = viewer(await lab.consoleUrl('admin'));
    open.push(admin);
    expect(await admin.handshake()).toBeGreaterThan(0);

    // The deadline closes every silent socket, which frees the player's places.
    const closes = await Promise.all(silent.map((v) => v.closed));
    expect(new Set(closes.map((c) => `${c.code} ${c.reason}`))).toEqual(
      new Set([`1008 ${HANDSHAKE_TIMEOUT_REASON}`]),
    );
    const again = viewer(await lab.consoleUrl('player'));
    open.push(again);
    expect(await again.handshake()).toBeGreaterThan(0);
  }, 60_000);
});

describe('the console cookie', () => {
  let lab: Awaited<ReturnType<typeof labServer>>;

  beforeAll(async () => {
    lab = await labServer({});
  }, 60_000);

  afterAll(async () => {
    await lab?.server.close();
  });

  it('ends on logout for every copy of it, while a new sign-in gets a working one', async () => {
    const cookieFrom = async () => {
      const login = await lab.call('player', 'POST', '/user/login');
      expect(login.status, login.text).toBe(200);
      return login.headers
        .getSetCookie()
        .find((c) => c.startsWith('topomojo.mks='))!
        .split(';')[0]!;
    };
    const ping = async (cookie: string) =>
      (await apiRequest(lab.server.url, { cookie }, 'GET', '/user/ping')).status;
    const cookie = await cookieFrom();
    const other = await cookieFrom();
    expect(await ping(cookie)).toBe(200);
    const out = await apiRequest(
      lab.server.url,
      { cookie, 'x-requested-with': 'XMLHttpRequest' },
      'POST',
      '/user/logout',
    );
    expect(out.status).toBe(200);
    // A copy kept by another tab, or by someone who took it, opens nothing any more.
    expect(await ping(cookie)).toBe(401);
    // The holder's other sign-ins are theirs to end.
    expect(await ping(other)).toBe(200);
    expect(await ping(await cookieFrom())).toBe(200);
  });
});

describe('console sockets behind a trusted proxy', () => {
  let lab: Awaited<ReturnType<typeof labServer>>;
  const open: Viewer[] = [];

  beforeAll(async () => {
    lab = await labServer({
      TRUST_PROXY: 'true',
      CONSOLE_MAX_PER_USER: '100',
      CONSOLE_MAX_PER_ADDRESS: '3',
    });
  }, 60_000);

  afterAll(async () => {
    for (const v of open.splice(0)) v.socket.terminate();
    await lab?.server.close();
  });

  it('caps consoles per forwarded address, not per proxy', async () => {
    const from = (address: string) => ({ 'x-forwarded-for': address });
    for (let i = 0; i < 3; i++) {
      const v = viewer(await lab.consoleUrl('player'), from('198.51.100.7'));
      open.push(v);
      expect(await v.handshake()).toBeGreaterThan(0);
    }
    const over = viewer(await lab.consoleUrl('player'), from('198.51.100.7'));
    open.push(over);
    expect(await over.greet()).toBe(addressCapReason(3));
    // Another client behind the same proxy is not locked out.
    const neighbour = viewer(await lab.consoleUrl('player'), from('198.51.100.8'));
    open.push(neighbour);
    expect(await neighbour.handshake()).toBeGreaterThan(0);
  }, 30_000);
});
