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
  ProtocolError,
  serverInit,
  type PixelFormat,
} from './messages';

// A minimal RFB server (RFC 6143) for one viewer of a simulated machine, from the viewer's
// ClientInit on: the version and security handshake (None) was done by whoever admitted the
// viewer (server/console greets every viewer itself; the PVE simulator does VNC authentication),
// so the session starts silent, answers the ClientInit with the ServerInit, then sends Raw-encoded
// updates of what changed since the viewer's last update and types keys into the machine's
// console. It talks to its transport only through `send` and `close`, so tests can drive it with
// bytes. The screen buffer a viewer needs is allocated only at its ClientInit.

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

type Phase = 'init' | 'normal' | 'closed';

/** Sentinel for pixels the viewer has never been sent; screen colours are 24-bit. */
const UNSEEN = 0xff000000;

export function startRfbSession(transport: RfbTransport, display: MachineDisplay): RfbSession {
  let phase: Phase = 'init';
  // What the viewer sent that is not read yet: a message may span many frames.
  const pending = createByteQueue();
  let format: PixelFormat = DEFAULT_PIXEL_FORMAT;
  let pressed: ReadonlySet<number> = new Set();
  // What the viewer has been sent; compared with the screen to find what to send next. Made at
  // the ClientInit: nothing is sent before it, so nothing needs comparing.
  let seen = new Uint32Array(0);
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

  const fullArea = (): Rect => {
    const { width, height } = display.screen();
    return { x: 0, y: 0, width, height };
  };

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
        case 'init': {
          if (pending.length < 1) return;
          // The shared flag does not matter: every viewer of a machine shares its screen.
          pending.take(1);
          const fb = display.screen();
          seen = new Uint32Array(fb.width * fb.height).fill(UNSEEN);
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
