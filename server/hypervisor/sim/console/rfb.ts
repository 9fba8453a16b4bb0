import { createByteQueue } from './byteQueue';
import type { MachineDisplay } from './display';
import { changedRects, clip, copyRect, type Rect } from './framebuffer';
import { pasteInputs, readKey } from './keys';
import {
  CLIENT_MESSAGE_HEAD_BYTES,
  clientMessageSize,
  DEFAULT_PIXEL_FORMAT,
  framebufferUpdate,
  isSupportedFormat,
  parseClientMessage,
  PROTOCOL_VERSION,
  ProtocolError,
  SECURITY_NONE,
  securityResult,
  securityTypes,
  serverInit,
  type PixelFormat,
} from './messages';

// A minimal RFB server (RFC 6143) for one viewer of a simulated machine: the handshake with the
// None security type (the one-time ticket in the WebSocket URL already admitted the viewer), then
// Raw-encoded updates of what changed since the viewer's last update, and keys typed into the
// machine's console. It talks to its transport only through `send` and `close`, so tests can
// drive it with bytes. A server that did the version and security handshake itself (the PVE
// simulator's VNC authentication) hands its viewer over with `afterSecurity`.

export interface RfbTransport {
  send(data: Buffer): void;
  close(code: number, reason: string): void;
}

export interface RfbSession {
  /** Bytes from the viewer, in any framing. */
  receive(data: Buffer): void;
  /** The transport closed: stop following the display. */
  end(): void;
}

/** WebSocket close codes the session uses. */
export const CLOSE_NORMAL = 1000;
export const CLOSE_PROTOCOL_ERROR = 1002;
export const MACHINE_OFF_REASON = 'The machine is not running.';

type Phase = 'version' | 'security' | 'init' | 'normal' | 'closed';

/** Sentinel for pixels the viewer has never been sent; screen colours are 24-bit. */
const UNSEEN = 0xff000000;

export interface RfbSessionOptions {
  /** The viewer already exchanged versions and passed security elsewhere: the session sends
   *  nothing until the ClientInit, then answers with the ServerInit. */
  afterSecurity?: boolean;
}

export function startRfbSession(
  transport: RfbTransport,
  display: MachineDisplay,
  options: RfbSessionOptions = {},
): RfbSession {
  let phase: Phase = options.afterSecurity ? 'init' : 'version';
  let legacy = false;
  // What the viewer sent that is not read yet: a message may span many frames.
  const pending = createByteQueue();
  let format: PixelFormat = DEFAULT_PIXEL_FORMAT;
  let pressed: ReadonlySet<number> = new Set();
  const first = display.screen();
  // What the viewer has been sent; compared with the screen to find what to send next.
  const seen = new Uint32Array(first.width * first.height).fill(UNSEEN);
  // An incremental request with nothing new to send waits here for the next change.
  let waiting: Rect | null = null;

  const close = (code: number, reason: string) => {
    if (phase === 'closed') return;
    phase = 'closed';
    unsubscribe();
    transport.close(code, reason);
  };

  const sendRects = (rects: Rect[]) => {
    const fb = display.screen();
    for (const rect of rects) copyRect(fb, seen, rect);
    transport.send(framebufferUpdate(fb, rects, format));
  };

  /** Sends what changed within the area; false when nothing did. */
  const sendChanges = (area: Rect): boolean => {
    const rects = changedRects(seen, display.screen(), area);
    if (rects.length === 0) return false;
    sendRects(rects);
    return true;
  };

  const fullArea = (): Rect => ({ x: 0, y: 0, width: first.width, height: first.height });

  const unsubscribe = display.onChange(() => {
    if (phase !== 'normal') return;
    if (!display.isRunning()) {
      // The last screen (with the machine's state) goes out even unasked, then the socket closes.
      sendChanges(waiting ?? fullArea());
      close(CLOSE_NORMAL, MACHINE_OFF_REASON);
      return;
    }
    if (waiting && sendChanges(waiting)) waiting = null;
  });

  const handleMessage = (message: ReturnType<typeof parseClientMessage>): void => {
    if (!message) return;
    const m = message.message;
    switch (m.type) {
      case 'setPixelFormat':
        if (!isSupportedFormat(m.format)) throw new ProtocolError('unsupported pixel format');
        format = m.format;
        // Everything sent so far was in the old format.
        seen.fill(UNSEEN);
        return;
      case 'setEncodings':
        // Raw is always allowed, and the only encoding used.
        return;
      case 'updateRequest': {
        const area = clip(display.screen(), m.rect);
        if (area.width === 0 || area.height === 0) return;
        if (!m.incremental) {
          sendRects([area]);
          waiting = null;
        } else if (!sendChanges(area)) {
          waiting = area;
        } else {
          waiting = null;
        }
        return;
      }
      case 'key': {
        const read = readKey(pressed, m.keysym, m.down);
        pressed = read.pressed;
        if (read.input) display.input([read.input]);
        return;
      }
      case 'pointer':
        // The simulated console has no pointer use; events are read and dropped.
        return;
      case 'cutText':
        display.input(pasteInputs(m.text));
        return;
    }
  };

  /** Consumes as much of the pending bytes as the current phase can. */
  const advance = (): void => {
    for (;;) {
      switch (phase) {
        case 'version': {
          if (pending.length < 12) return;
          const version = pending.take(12).toString('latin1');
          const match = /^RFB (\d{3})\.(\d{3})\n$/.exec(version);
          if (!match) throw new ProtocolError('not an RFB client');
          const minor = Number(match[1]) > 3 ? 8 : Number(match[2]);
          // 3.3 viewers are told the security type; later ones choose from a list.
          legacy = minor < 7;
          if (legacy) {
            transport.send(Buffer.from([0, 0, 0, SECURITY_NONE]));
            phase = 'init';
          } else {
            transport.send(securityTypes());
            phase = 'security';
          }
          continue;
        }
        case 'security': {
          if (pending.length < 1) return;
          const chosen = pending.take(1).readUInt8(0);
          if (chosen !== SECURITY_NONE) {
            transport.send(securityResult('Unsupported security type'));
            close(CLOSE_PROTOCOL_ERROR, 'unsupported security type');
            return;
          }
          transport.send(securityResult());
          phase = 'init';
          continue;
        }
        case 'init': {
          if (pending.length < 1) return;
          // The shared flag does not matter: every viewer of a machine shares its screen.
          pending.take(1);
          const fb = display.screen();
          transport.send(serverInit(fb.width, fb.height, format, display.name));
          phase = 'normal';
          continue;
        }
        case 'normal': {
          // The message's size is known from its first bytes, so a long one is copied out once,
          // when it is complete, however many frames it came in.
          const head = pending.peek(Math.min(pending.length, CLIENT_MESSAGE_HEAD_BYTES));
          const size = clientMessageSize(head);
          if (size === null || pending.length < size) return;
          handleMessage(parseClientMessage(pending.take(size)));
          continue;
        }
        case 'closed':
          return;
      }
    }
  };

  if (phase === 'version') transport.send(Buffer.from(PROTOCOL_VERSION, 'latin1'));

  return {
    receive(data) {
      if (phase === 'closed') return;
      pending.push(data);
      try {
        advance();
      } catch (error) {
        if (!(error instanceof ProtocolError)) throw error;
        close(CLOSE_PROTOCOL_ERROR, error.message);
      }
    },
    end() {
      phase = 'closed';
      unsubscribe();
    },
  };
}
