import type WebSocket from 'ws';
import type { ConsoleSession, ConsoleViewer } from '../types';
import { vncAuthResponse } from './des';

// The bridge between a viewer of a Proxmox machine's console and PVE's vncwebsocket. PVE's VNC
// server wants VNC authentication with the vncproxy ticket as the password; the viewer was
// already admitted by our own one-time console ticket and must never learn PVE's. So the bridge
// does two RFB handshakes (RFC 6143 §7.1-7.2): as a client upstream (VNC authentication), then,
// once that succeeded, as a server to the viewer (RFB 3.8, security type None). From the viewer's
// ClientInit on it only carries bytes, unchanged, both ways.
//
// The viewer hears nothing until PVE accepted the ticket, so a console that cannot be opened
// ends with a close frame (1011) before any RFB byte, which noVNC reports as a failed connection
// rather than as a protocol error. RFB messages may be split or merged across WebSocket frames
// on either side; the handshakes read exact byte counts whatever the framing.

export const CLOSE_NORMAL = 1000;
export const CLOSE_PROTOCOL_ERROR = 1002;
export const CLOSE_INTERNAL_ERROR = 1011;
/** Why the viewer is closed when PVE's console could not be reached or refused the ticket. */
export const CONSOLE_OPEN_FAILED = 'The console could not be opened.';
/** Why the viewer is closed when PVE ends an open console (the machine stopped). */
export const CONSOLE_CLOSED = 'The console closed.';
/** Why the viewer is closed when the connection to PVE broke while the console was open. */
export const CONSOLE_LOST = 'The console connection was lost.';

const SECURITY_INVALID = 0;
const SECURITY_NONE = 1;
const SECURITY_VNC = 2;
/** Longest failure reason read from PVE; a longer one means the stream is not RFB. */
const MAX_REASON_BYTES = 64 * 1024;
/** WebSocket close codes PVE uses when a console simply ends. */
const CLEAN_CLOSES = new Set([1000, 1001, 1005]);

export interface BridgeOptions {
  /** Told why a console failed (PVE's reason included), for the log; never the ticket. */
  onFailure?: (detail: string) => void;
}

/** The viewer broke the protocol (closed with 1002) rather than PVE failing (1011). */
class ViewerProtocolError extends Error {}

// ---------------------------------------------------------------------------------------------
// Exact reads over frames

interface ByteReader {
  push(chunk: Buffer): void;
  /** The next `n` bytes, once they arrived. */
  read(n: number): Promise<Buffer>;
  /** Rejects the waiting read and every later one. */
  fail(error: Error): void;
  /** Everything held and unread: the handshake is over. */
  drain(): Buffer;
}

/** Holds only handshake bytes (and what a viewer sends early), so concatenating is cheap. */
function createByteReader(): ByteReader {
  let chunks: Buffer[] = [];
  let length = 0;
  let waiting: { n: number; resolve(bytes: Buffer): void; reject(error: Error): void } | null =
    null;
  let failure: Error | null = null;

  const take = (n: number): Buffer => {
    const all = Buffer.concat(chunks, length);
    chunks = n < length ? [all.subarray(n)] : [];
    length -= n;
    return all.subarray(0, n);
  };
  const serve = () => {
    if (!waiting || length < waiting.n) return;
    const { n, resolve } = waiting;
    waiting = null;
    resolve(take(n));
  };

  return {
    push(chunk) {
      if (chunk.length === 0 || failure) return;
      chunks.push(chunk);
      length += chunk.length;
      serve();
    },
    read(n) {
      if (failure) return Promise.reject(failure);
      return new Promise((resolve, reject) => {
        waiting = { n, resolve, reject };
        serve();
      });
    },
    fail(error) {
      failure ??= error;
      waiting?.reject(error);
      waiting = null;
    },
    drain: () => take(length),
  };
}

// ---------------------------------------------------------------------------------------------
// RFB handshake pieces

type Read = (n: number) => Promise<Buffer>;
type Send = (bytes: Uint8Array) => void;

/** The protocol minor version spoken: 3.3, 3.7 or 3.8 (others count as 3.3, RFC 6143 §7.1.1). */
type Minor = 3 | 7 | 8;

const versionMessage = (minor: Minor): Buffer => Buffer.from(`RFB 003.00${minor}\n`, 'latin1');

/** The version in a ProtocolVersion message, or null when it is not one of RFB 3. */
function parseVersion(bytes: Buffer): Minor | null {
  const match = /^RFB 003\.(\d{3})\n$/.exec(bytes.toString('latin1'));
  if (!match) return null;
  const minor = Number(match[1]);
  return minor >= 8 ? 8 : minor === 7 ? 7 : 3;
}

const u32 = (value: number): Buffer => {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(value);
  return bytes;
};

/** A failure reason as RFB sends it: a length, then the text. */
async function readReason(read: Read): Promise<string> {
  const length = (await read(4)).readUInt32BE(0);
  if (length > MAX_REASON_BYTES) throw new Error('PVE sent an oversized failure reason');
  return length === 0 ? '' : (await read(length)).toString('utf8');
}

/** The security type PVE's server uses: told (3.3) or chosen from its list (3.7, 3.8). */
async function upstreamSecurityType(read: Read, send: Send, minor: Minor): Promise<number> {
  if (minor === 3) {
    const type = (await read(4)).readUInt32BE(0);
    if (type === SECURITY_INVALID) throw new Error(`PVE refused: ${await readReason(read)}`);
    return type;
  }
  const count = (await read(1))[0]!;
  if (count === 0) throw new Error(`PVE refused: ${await readReason(read)}`);
  const offered = [...(await read(count))];
  // VNC authentication is what PVE offers; None is taken too, should a server offer only that.
  const type = [SECURITY_VNC, SECURITY_NONE].find((t) => offered.includes(t));
  if (type === undefined) throw new Error(`PVE offered no usable security type (${offered})`);
  send(Uint8Array.of(type));
  return type;
}

/** The client side of the handshake with PVE, up to (not including) the ClientInit. */
async function authenticateUpstream(read: Read, send: Send, ticket: string): Promise<void> {
  const minor = parseVersion(await read(12));
  if (minor === null) throw new Error('PVE did not speak RFB 3');
  send(versionMessage(minor));
  const type = await upstreamSecurityType(read, send, minor);
  if (type === SECURITY_VNC) {
    send(vncAuthResponse(await read(16), ticket));
  } else if (type !== SECURITY_NONE) {
    throw new Error(`PVE chose security type ${type}`);
  }
  // 3.3 and 3.7 send no SecurityResult after None; 3.8 always does.
  if (type === SECURITY_NONE && minor !== 8) return;
  if ((await read(4)).readUInt32BE(0) === 0) return;
  const reason = minor === 8 ? await readReason(read) : '';
  throw new Error(`PVE refused the console ticket${reason ? `: ${reason}` : ''}`);
}

/** The server side of the handshake with the viewer (security None), up to the ClientInit. */
async function greetViewer(read: Read, send: Send): Promise<void> {
  send(versionMessage(8));
  const minor = parseVersion(await read(12));
  if (minor === null) throw new ViewerProtocolError('unsupported RFB version');
  if (minor === 3) {
    send(u32(SECURITY_NONE));
    return;
  }
  send(Uint8Array.of(1, SECURITY_NONE));
  const chosen = (await read(1))[0];
  if (chosen !== SECURITY_NONE) throw new ViewerProtocolError('unsupported security type');
  if (minor === 8) send(u32(0));
}

const asBuffer = (data: WebSocket.RawData): Buffer =>
  Array.isArray(data)
    ? Buffer.concat(data)
    : Buffer.isBuffer(data)
      ? data
      : Buffer.from(new Uint8Array(data));

// ---------------------------------------------------------------------------------------------
// The bridge

type Phase = 'authenticating' | 'greeting' | 'relaying' | 'closed';

/** Bridges a viewer to a PVE console: `upstream` is an open (possibly paused) WebSocket to PVE's vncwebsocket. The
 *  bridge authenticates upstream with VNC authentication (password = the vncproxy ticket), then
 *  offers the viewer an RFB 3.8 handshake with security type None (our one-time console ticket
 *  already admitted it) and from the viewer's ClientInit on relays bytes both ways unchanged. */
export function bridgePveConsole(
  upstream: WebSocket,
  ticket: string,
  viewer: ConsoleViewer,
  options: BridgeOptions = {},
): ConsoleSession {
  let phase: Phase = 'authenticating';
  const isClosed = () => phase === 'closed';
  const fromUpstream = createByteReader();
  // What the viewer sends before PVE accepted the ticket waits here.
  const fromViewer = createByteReader();

  const sendUpstream = (bytes: Uint8Array) => {
    if (upstream.readyState === upstream.OPEN) upstream.send(bytes);
  };

  /** Ends both sides; `detail` says why, for the log. */
  const finish = (code: number, reason: string, detail: string) => {
    if (isClosed()) return;
    phase = 'closed';
    const ended = new Error(detail);
    fromUpstream.fail(ended);
    fromViewer.fail(ended);
    upstream.close(CLOSE_NORMAL);
    viewer.close(code, reason);
    if (code !== CLOSE_NORMAL) options.onFailure?.(detail);
  };

  upstream.binaryType = 'nodebuffer';
  upstream.on('message', (data: WebSocket.RawData) => {
    if (phase === 'relaying') viewer.send(asBuffer(data));
    else fromUpstream.push(asBuffer(data));
  });
  upstream.on('close', (code: number) => {
    if (phase !== 'relaying') {
      finish(CLOSE_INTERNAL_ERROR, CONSOLE_OPEN_FAILED, `PVE closed the console (${code})`);
    } else if (CLEAN_CLOSES.has(code)) {
      finish(CLOSE_NORMAL, CONSOLE_CLOSED, 'PVE ended the console');
    } else {
      finish(CLOSE_INTERNAL_ERROR, CONSOLE_LOST, `PVE closed the console (${code})`);
    }
  });
  upstream.on('error', (error: Error) => {
    const reason = phase === 'relaying' ? CONSOLE_LOST : CONSOLE_OPEN_FAILED;
    finish(CLOSE_INTERNAL_ERROR, reason, `PVE console connection: ${error.message}`);
  });

  // openWebSocket hands the socket over paused so that nothing PVE said first is lost.
  upstream.resume();

  const handshake = async () => {
    await authenticateUpstream((n) => fromUpstream.read(n), sendUpstream, ticket);
    phase = 'greeting';
    await greetViewer(
      (n) => fromViewer.read(n),
      (bytes) => viewer.send(bytes),
    );
    phase = 'relaying';
    // The viewer's ClientInit and anything after it, then anything PVE sent meanwhile.
    const early = fromViewer.drain();
    if (early.length > 0) sendUpstream(early);
    const pending = fromUpstream.drain();
    if (pending.length > 0) viewer.send(pending);
  };

  handshake().catch((error: unknown) => {
    if (isClosed()) return;
    const detail = error instanceof Error ? error.message : String(error);
    if (error instanceof ViewerProtocolError) {
      finish(CLOSE_PROTOCOL_ERROR, detail, `viewer: ${detail}`);
    } else {
      finish(CLOSE_INTERNAL_ERROR, CONSOLE_OPEN_FAILED, detail);
    }
  });

  return {
    receive(bytes) {
      if (phase === 'relaying') sendUpstream(bytes);
      else if (!isClosed()) fromViewer.push(Buffer.from(bytes));
    },
    end() {
      if (isClosed()) return;
      phase = 'closed';
      const ended = new Error('the viewer went away');
      fromUpstream.fail(ended);
      fromViewer.fail(ended);
      upstream.close(CLOSE_NORMAL);
    },
  };
}
