import type { ConsoleSession, ConsoleViewer } from './types';

// The RFB handshakes (RFC 6143 §7.1-7.3) every console of this server shares. The console route
// (server/console) greets each viewer itself, security type None (the one-time ticket already
// admitted it), and only once the viewer has chosen its security type does a driver open
// anything: a viewer that never answers costs a few bytes and a timer, not a screen buffer or a
// connection to the machine. A driver's console session therefore starts at the viewer's
// ClientInit. Drivers whose machines have a VNC server of their own (QEMU's socket, PVE's
// vncwebsocket) relay to it with `relayRfb`, which does the client side of the handshake
// upstream and then carries bytes unchanged both ways.
//
// RFB messages may be split or merged across WebSocket frames on either side; the handshakes
// read exact byte counts whatever the framing.

export const CLOSE_NORMAL = 1000;
export const CLOSE_PROTOCOL_ERROR = 1002;
export const CLOSE_INTERNAL_ERROR = 1011;
/** Why the viewer is closed when the machine's VNC server could not be reached or refused us. */
export const CONSOLE_OPEN_FAILED = 'The console could not be opened.';
/** Why the viewer is closed when the machine's VNC server ends an open console (it stopped). */
export const CONSOLE_CLOSED = 'The console closed.';
/** Why the viewer is closed when the connection to the VNC server broke while it was open. */
export const CONSOLE_LOST = 'The console connection was lost.';

export const SECURITY_INVALID = 0;
export const SECURITY_NONE = 1;
export const SECURITY_VNC = 2;
/** Longest failure reason read from a VNC server; a longer one means the stream is not RFB. */
const MAX_REASON_BYTES = 64 * 1024;

/** The viewer broke the protocol: closed with 1002, not blamed on the machine. */
export class ViewerProtocolError extends Error {}

// ---------------------------------------------------------------------------------------------
// Exact reads over frames

export interface ByteReader {
  push(chunk: Buffer): void;
  /** The next `n` bytes, once they arrived. */
  read(n: number): Promise<Buffer>;
  /** Rejects the waiting read and every later one. */
  fail(error: Error): void;
  /** Everything held and unread: the handshake is over. */
  drain(): Buffer;
  /** Bytes held and unread. */
  readonly length: number;
}

/** Holds only handshake bytes (and what a peer sends early), so concatenating is cheap. */
export function createByteReader(): ByteReader {
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
    get length() {
      return length;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Handshake pieces

type Read = (n: number) => Promise<Buffer>;
type Send = (bytes: Uint8Array) => void;

/** The protocol minor version spoken: 3.3, 3.7 or 3.8 (others count as 3.3, RFC 6143 §7.1.1). */
export type Minor = 3 | 7 | 8;

export const versionMessage = (minor: Minor): Buffer =>
  Buffer.from(`RFB 003.00${minor}\n`, 'latin1');

/** The version in a ProtocolVersion message, or null when it is not one of RFB 3. */
export function parseVersion(bytes: Buffer): Minor | null {
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
async function readReason(read: Read, peer: string): Promise<string> {
  const length = (await read(4)).readUInt32BE(0);
  if (length > MAX_REASON_BYTES) throw new Error(`${peer} sent an oversized failure reason`);
  return length === 0 ? '' : (await read(length)).toString('utf8');
}

/**
 * The server side of the handshake with a viewer, up to (not including) its ClientInit:
 * security type None, or, with `refusal`, no security type at all and that reason, which a
 * viewer shows its user (noVNC's `securityfailure`). Resolves true when the viewer got in.
 */
export async function greetViewer(read: Read, send: Send, refusal?: string): Promise<boolean> {
  send(versionMessage(8));
  const minor = parseVersion(await read(12));
  if (minor === null) throw new ViewerProtocolError('unsupported RFB version');
  if (refusal !== undefined) {
    const reason = Buffer.from(refusal, 'utf8');
    // 3.3 has the server name the type, 0 being a failure; 3.7 and 3.8 an empty list.
    send(Buffer.concat([minor === 3 ? u32(SECURITY_INVALID) : Buffer.of(0), u32(reason.length)]));
    send(reason);
    return false;
  }
  if (minor === 3) {
    send(u32(SECURITY_NONE));
    return true;
  }
  send(Uint8Array.of(1, SECURITY_NONE));
  const chosen = (await read(1))[0];
  if (chosen !== SECURITY_NONE) throw new ViewerProtocolError('unsupported security type');
  if (minor === 8) send(u32(0));
  return true;
}

export interface UpstreamAuth {
  /** Who the VNC server is, for error messages ("PVE", "QEMU"). */
  peer: string;
  /** The answer to VNC authentication's challenge; without it only None is accepted. */
  vncResponse?: (challenge: Buffer) => Uint8Array;
}

/** The security type the server uses: told (3.3) or chosen from its list (3.7, 3.8). */
async function upstreamSecurityType(
  read: Read,
  send: Send,
  minor: Minor,
  auth: UpstreamAuth,
): Promise<number> {
  const { peer } = auth;
  if (minor === 3) {
    const type = (await read(4)).readUInt32BE(0);
    if (type === SECURITY_INVALID)
      throw new Error(`${peer} refused: ${await readReason(read, peer)}`);
    return type;
  }
  const count = (await read(1))[0]!;
  if (count === 0) throw new Error(`${peer} refused: ${await readReason(read, peer)}`);
  const offered = [...(await read(count))];
  const usable = auth.vncResponse ? [SECURITY_VNC, SECURITY_NONE] : [SECURITY_NONE];
  const type = usable.find((t) => offered.includes(t));
  if (type === undefined) throw new Error(`${peer} offered no usable security type (${offered})`);
  send(Uint8Array.of(type));
  return type;
}

/** The client side of the handshake with a machine's VNC server, up to (not including) the ClientInit. */
export async function handshakeUpstream(read: Read, send: Send, auth: UpstreamAuth): Promise<void> {
  const { peer } = auth;
  const minor = parseVersion(await read(12));
  if (minor === null) throw new Error(`${peer} did not speak RFB 3`);
  send(versionMessage(minor));
  const type = await upstreamSecurityType(read, send, minor, auth);
  if (type === SECURITY_VNC && auth.vncResponse) {
    send(auth.vncResponse(await read(16)));
  } else if (type !== SECURITY_NONE) {
    throw new Error(`${peer} chose security type ${type}`);
  }
  // 3.3 and 3.7 send no SecurityResult after None; 3.8 always does.
  if (type === SECURITY_NONE && minor !== 8) return;
  if ((await read(4)).readUInt32BE(0) === 0) return;
  const reason = minor === 8 ? await readReason(read, peer) : '';
  throw new Error(`${peer} refused the console${reason ? `: ${reason}` : ''}`);
}

// ---------------------------------------------------------------------------------------------
// The relay to a machine's own VNC server

/** The connection to the machine's VNC server, as the driver opened it. */
export interface UpstreamLink {
  send(bytes: Uint8Array): void;
  close(): void;
}

export interface RfbRelay extends ConsoleSession {
  /** Bytes from the VNC server. */
  fromUpstream(bytes: Buffer): void;
  /**
   * The VNC server's connection ended: `clean` when it simply closed (the machine stopped),
   * `detail` for the log.
   */
  upstreamEnded(clean: boolean, detail: string): void;
}

export interface RelayOptions extends UpstreamAuth {
  /** Told why a console failed, for the log; never a secret. */
  onFailure?: (detail: string) => void;
}

type Phase = 'authenticating' | 'relaying' | 'closed';

/**
 * A viewer's session relayed to a machine's VNC server: the client handshake upstream, then the
 * viewer's ClientInit (and whatever it sent meanwhile) and from there on bytes both ways,
 * unchanged. A VNC server that refuses or goes away closes the viewer with a reason it can show.
 */
export function relayRfb(
  upstream: UpstreamLink,
  viewer: ConsoleViewer,
  options: RelayOptions,
): RfbRelay {
  let phase: Phase = 'authenticating';
  const isClosed = () => phase === 'closed';
  const fromUpstream = createByteReader();
  // The viewer's ClientInit, and anything after it, waits here until upstream is ready.
  const fromViewer: Buffer[] = [];

  /** Ends both sides; `detail` says why, for the log. */
  const finish = (code: number, reason: string, detail: string) => {
    if (isClosed()) return;
    phase = 'closed';
    fromUpstream.fail(new Error(detail));
    fromViewer.length = 0;
    upstream.close();
    viewer.close(code, reason);
    if (code !== CLOSE_NORMAL) options.onFailure?.(detail);
  };

  handshakeUpstream((n) => fromUpstream.read(n), upstream.send, options).then(
    () => {
      if (isClosed()) return;
      phase = 'relaying';
      for (const bytes of fromViewer.splice(0)) upstream.send(bytes);
      const pending = fromUpstream.drain();
      if (pending.length > 0) viewer.send(pending);
    },
    (error: unknown) => {
      const detail = error instanceof Error ? error.message : String(error);
      finish(CLOSE_INTERNAL_ERROR, CONSOLE_OPEN_FAILED, detail);
    },
  );

  return {
    receive(bytes) {
      if (phase === 'relaying') upstream.send(bytes);
      else if (!isClosed()) fromViewer.push(Buffer.from(bytes));
    },
    end() {
      if (isClosed()) return;
      phase = 'closed';
      fromUpstream.fail(new Error('the viewer went away'));
      upstream.close();
    },
    fromUpstream(bytes) {
      if (phase === 'relaying') viewer.send(bytes);
      else if (!isClosed()) fromUpstream.push(bytes);
    },
    upstreamEnded(clean, detail) {
      if (phase !== 'relaying') finish(CLOSE_INTERNAL_ERROR, CONSOLE_OPEN_FAILED, detail);
      else if (clean) finish(CLOSE_NORMAL, CONSOLE_CLOSED, detail);
      else finish(CLOSE_INTERNAL_ERROR, CONSOLE_LOST, detail);
    },
  };
}
