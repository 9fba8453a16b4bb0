import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import type { ConsoleSession, ConsoleViewer } from '../types';
import { vncAuthResponse } from './des';
import {
  bridgePveConsole,
  CLOSE_INTERNAL_ERROR,
  CLOSE_NORMAL,
  CONSOLE_CLOSED,
  CONSOLE_LOST,
  CONSOLE_OPEN_FAILED,
} from './vncBridge';

// The bridge between a viewer and a fake PVE vncwebsocket: a WebSocketServer that speaks the
// server side of RFB 3.8 or 3.3 with VNC authentication, splitting and merging its messages
// across frames, and after ServerInit echoes what it gets. The viewer is a recording
// ConsoleViewer fed through the session; server/console greeted it already, so its first bytes
// are the ClientInit.

const TICKET = 'PVEVNC:6791A2B3::cGxheWVyIHRpY2tldCBmb3IgdGhlIHRlc3Q=';

const u16 = (value: number) => Buffer.from([value >> 8, value & 0xff]);
const u32 = (value: number) => {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(value);
  return bytes;
};
const rfbVersion = (minor: 3 | 7 | 8) => Buffer.from(`RFB 003.00${minor}\n`, 'latin1');
const SERVER_INIT = Buffer.concat([
  u16(640),
  u16(480),
  Buffer.alloc(16, 7),
  u32(5),
  Buffer.from('vm100'),
]);
/** A Bell message, sent in the same frame as the end of the ServerInit. */
const BELL = Buffer.from([2]);

/** Exact reads over a server-side socket's frames. */
function frames(ws: WebSocket) {
  let held = Buffer.alloc(0);
  let waiting: { n: number; resolve(bytes: Buffer): void } | null = null;
  let echo = false;
  const serve = () => {
    if (echo && held.length > 0) {
      ws.send(held);
      held = Buffer.alloc(0);
    }
    if (!waiting || held.length < waiting.n) return;
    const { n, resolve } = waiting;
    waiting = null;
    const out = held.subarray(0, n);
    held = held.subarray(n);
    resolve(out);
  };
  ws.on('message', (data: Buffer) => {
    held = Buffer.concat([held, data]);
    serve();
  });
  return {
    read: (n: number) =>
      new Promise<Buffer>((resolve) => {
        waiting = { n, resolve };
        serve();
      }),
    echoFromNowOn() {
      echo = true;
      serve();
    },
  };
}

interface FakePve {
  url: string;
  /** What the fake saw the bridge do. */
  log: {
    clientVersion?: string;
    chosenType?: number;
    authenticated?: boolean;
    clientInit?: number;
  };
  closed: Promise<void>;
  close(): Promise<void>;
}

/** A PVE vncwebsocket that wants `ticket` as the VNC password. */
async function startFakePve(minor: 3 | 8, ticket = TICKET): Promise<FakePve> {
  const log: FakePve['log'] = {};
  let resolveClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));

  const { url, close } = await listen(async (ws) => {
    ws.on('close', () => resolveClosed());
    const { read, echoFromNowOn } = frames(ws);
    // The version one byte per frame.
    for (const byte of rfbVersion(minor)) ws.send(Buffer.of(byte));
    log.clientVersion = (await read(12)).toString('latin1');
    const challenge = randomBytes(16);
    if (minor === 3) {
      // The server picks VNC authentication; its type and the challenge share a frame.
      ws.send(Buffer.concat([u32(2), challenge]));
    } else {
      ws.send(Buffer.of(1, 2));
      log.chosenType = (await read(1))[0];
      ws.send(challenge);
    }
    const response = await read(16);
    log.authenticated = Buffer.from(vncAuthResponse(challenge, ticket)).equals(response);
    if (!log.authenticated) {
      const reason = Buffer.from('Authentication failed');
      ws.send(minor === 8 ? Buffer.concat([u32(1), u32(reason.length), reason]) : u32(1));
      return;
    }
    ws.send(u32(0));
    log.clientInit = (await read(1))[0];
    ws.send(SERVER_INIT.subarray(0, 10));
    ws.send(Buffer.concat([SERVER_INIT.subarray(10), BELL]));
    echoFromNowOn();
  });

  return { url, log, closed, close };
}

const cleanups: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** A WebSocket server on a free port, whose clients are cut and which is closed after the test. */
async function listen(onConnection: (ws: WebSocket) => void) {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await once(server, 'listening');
  server.on('connection', onConnection);
  const close = async () => {
    for (const client of server.clients) client.terminate();
    await new Promise((resolve) => server.close(resolve));
  };
  cleanups.push(close);
  return { url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`, close };
}

/** A viewer that records what it is sent and how it is closed. */
function recordingViewer() {
  const state = { bytes: Buffer.alloc(0), closes: [] as { code: number; reason: string }[] };
  const viewer: ConsoleViewer = {
    send: (bytes) => {
      state.bytes = Buffer.concat([state.bytes, Buffer.from(bytes)]);
    },
    close: (code, reason) => state.closes.push({ code, reason }),
  };
  return { viewer, state };
}

/** A socket to the fake, paused as soon as it opens, as openWebSocket hands it over. */
async function openUpstream(url: string): Promise<WebSocket> {
  const socket = new WebSocket(url);
  socket.once('open', () => socket.pause());
  await once(socket, 'open');
  return socket;
}

async function bridged(minor: 3 | 8, bridgeTicket = TICKET) {
  const pve = await startFakePve(minor);
  const upstream = await openUpstream(pve.url);
  const { viewer, state } = recordingViewer();
  const failures: string[] = [];
  const session: ConsoleSession = bridgePveConsole(upstream, bridgeTicket, viewer, {
    onFailure: (detail) => failures.push(detail),
  });
  cleanups.push(() => session.end());
  return { pve, upstream, session, state, failures };
}

/** The viewer's bytes once it has at least `n`. */
async function viewerBytes(state: { bytes: Buffer }, n: number): Promise<Buffer> {
  await expect.poll(() => state.bytes.length).toBeGreaterThanOrEqual(n);
  return state.bytes;
}

describe('PVE console bridge', () => {
  it("authenticates with the ticket, then relays the viewer's ClientInit and the ServerInit", async () => {
    const { pve, session, state } = await bridged(8);
    // The ClientInit, sent before PVE accepted the ticket: held until then.
    session.receive(Buffer.of(1));
    const init = await viewerBytes(state, SERVER_INIT.length + BELL.length);
    expect(pve.log).toMatchObject({
      clientVersion: 'RFB 003.008\n',
      chosenType: 2,
      authenticated: true,
      clientInit: 1,
    });
    expect(init).toEqual(Buffer.concat([SERVER_INIT, BELL]));
    expect(state.bytes.toString('latin1')).not.toContain(TICKET);
  });

  it('relays from the ClientInit on, both ways, whatever the framing', async () => {
    const { pve, session, state } = await bridged(8);
    session.receive(Buffer.of(1));
    await viewerBytes(state, SERVER_INIT.length + BELL.length);
    expect(pve.log.clientInit).toBe(1);
    const keyEvent = Buffer.from([4, 1, 0, 0, 0, 0, 0, 0x61]);
    session.receive(keyEvent.subarray(0, 3));
    session.receive(keyEvent.subarray(3));
    const all = await viewerBytes(state, SERVER_INIT.length + BELL.length + 8);
    expect(all.subarray(-8)).toEqual(keyEvent);
    expect(state.closes).toEqual([]);
  });

  it('speaks 3.3 with a server that picks the security type itself', async () => {
    const { pve, session, state } = await bridged(3);
    session.receive(Buffer.of(0));
    const bytes = await viewerBytes(state, SERVER_INIT.length);
    expect(pve.log).toMatchObject({ clientVersion: 'RFB 003.003\n', authenticated: true });
    expect(pve.log.clientInit).toBe(0);
    expect(bytes.subarray(0, SERVER_INIT.length)).toEqual(SERVER_INIT);
  });

  it("closes the viewer with 1011, before any byte of PVE's, when PVE refuses the ticket", async () => {
    const { pve, state, failures } = await bridged(8, 'PVEVNC:not-the-ticket');
    await expect
      .poll(() => state.closes)
      .toEqual([{ code: CLOSE_INTERNAL_ERROR, reason: CONSOLE_OPEN_FAILED }]);
    expect(pve.log.authenticated).toBe(false);
    expect(state.bytes.length).toBe(0);
    expect(failures.join()).toContain('Authentication failed');
    await pve.closed;
  });

  it('closes the viewer with 1011 when PVE closes before the console opened', async () => {
    const { url } = await listen((ws) => {
      ws.send(rfbVersion(8));
      ws.close(1011, 'VM 100 not running');
    });
    const upstream = await openUpstream(url);
    const { viewer, state } = recordingViewer();
    bridgePveConsole(upstream, TICKET, viewer);
    await expect
      .poll(() => state.closes)
      .toEqual([{ code: CLOSE_INTERNAL_ERROR, reason: CONSOLE_OPEN_FAILED }]);
    expect(state.bytes.length).toBe(0);
  });

  it('closes the viewer with 1011 when the connection to PVE breaks', async () => {
    const { pve, session, state } = await bridged(8);
    session.receive(Buffer.of(1));
    await viewerBytes(state, SERVER_INIT.length);
    await pve.close();
    await expect
      .poll(() => state.closes)
      .toEqual([{ code: CLOSE_INTERNAL_ERROR, reason: CONSOLE_LOST }]);
  });

  it('closes the viewer normally when PVE ends an open console cleanly', async () => {
    const { url } = await listen(async (ws) => {
      const { read } = frames(ws);
      // A server with security None: version and type list in one frame; the machine stops
      // right after its ServerInit.
      ws.send(Buffer.concat([rfbVersion(8), Buffer.of(1, 1)]));
      await read(12 + 1);
      ws.send(u32(0));
      await read(1);
      ws.send(SERVER_INIT);
      ws.close(1000);
    });
    const upstream = await openUpstream(url);
    const { viewer, state } = recordingViewer();
    const session = bridgePveConsole(upstream, TICKET, viewer);
    session.receive(Buffer.of(0));
    await expect.poll(() => state.closes).toEqual([{ code: CLOSE_NORMAL, reason: CONSOLE_CLOSED }]);
    expect(state.bytes).toEqual(SERVER_INIT);
  });

  it('closes PVE when the viewer goes away', async () => {
    const { pve, session } = await bridged(8);
    session.receive(Buffer.of(1));
    await expect.poll(() => pve.log.clientInit).toBe(1);
    session.end();
    await pve.closed;
  });
});
