import { ViewerProtocolError } from '../hypervisor/rfb';

// A view-only viewer's input never reaches the machine: its client messages (RFB 6.4, after the
// ClientInit) are read one by one, with their exact lengths, over however the WebSocket chunked
// them, and only those that ask for the screen are passed on. The SPA also sets noVNC viewOnly,
// but that is the viewer's own choice; this is the server's.
//
// A message type whose length is unknown closes the viewer: the stream cannot be read past it,
// so passing it on could smuggle a KeyEvent inside what the machine reads as something else.

/** Message types that only read the screen or tune the stream; passed on. */
const PASSED = new Set([
  0, // SetPixelFormat
  2, // SetEncodings
  3, // FramebufferUpdateRequest
  150, // EnableContinuousUpdates
  248, // ClientFence
]);

/**
 * The byte length of the client message `head` begins (its first bytes), or null when more of
 * them are needed to tell. Types that drive the machine are sized too, so they can be skipped:
 * KeyEvent 4, PointerEvent 5, ClientCutText 6, xvp 250, SetDesktopSize 251 and QEMU 255.
 */
export function clientMessageLength(head: Uint8Array): number | null {
  if (head.length < 1) return null;
  const type = head[0]!;
  const u16 = (at: number) => (head[at]! << 8) | head[at + 1]!;
  switch (type) {
    case 0:
      return 20;
    case 2:
      return head.length < 4 ? null : 4 + u16(2) * 4;
    case 3:
      return 10;
    case 4:
      return 8;
    case 5:
      // With the marker bit, an ExtendedMouseButtons pointer event: one byte more.
      return head.length < 2 ? null : head[1]! & 0x80 ? 7 : 6;
    case 6: {
      if (head.length < 8) return null;
      // A negative length is the Extended Clipboard form; its bytes count the same.
      const length = Math.abs(new DataView(head.buffer, head.byteOffset + 4, 4).getInt32(0));
      return 8 + length;
    }
    case 150:
      return 10;
    case 248:
      return head.length < 9 ? null : 9 + head[8]!;
    case 250:
      return 4;
    case 251:
      return head.length < 7 ? null : 8 + head[6]! * 16;
    case 255: {
      if (head.length < 2) return null;
      // QEMU client messages: 0 the extended key event, 1 audio (set-format carries 6 more).
      if (head[1] === 0) return 12;
      if (head[1] === 1) return head.length < 4 ? null : u16(2) === 2 ? 10 : 4;
      throw new ViewerProtocolError(`unknown QEMU client message ${head[1]}`);
    }
    default:
      throw new ViewerProtocolError(`unknown client message type ${type}`);
  }
}

export interface InputFilter {
  /**
   * The bytes of `chunk` to pass on to the machine: whole or partial messages of the passed
   * types, in order. Throws ViewerProtocolError on a message type of unknown length.
   */
  push(chunk: Uint8Array): Buffer;
}

/** A filter for one view-only viewer's client messages, from the first after ClientInit on. */
export function createViewOnlyFilter(): InputFilter {
  // The front of a message whose length is not known yet.
  let head = Buffer.alloc(0);
  // Bytes of the current message still to come, and whether they are passed on or skipped.
  let remaining = 0;
  let passing = false;

  return {
    push(chunk) {
      const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      const out: Buffer[] = [];
      let at = 0;
      while (at < bytes.length) {
        if (remaining > 0) {
          const n = Math.min(remaining, bytes.length - at);
          if (passing) out.push(bytes.subarray(at, at + n));
          at += n;
          remaining -= n;
          continue;
        }
        // One byte at a time into the head, until it tells the message's length.
        head = Buffer.concat([head, bytes.subarray(at, at + 1)]);
        at += 1;
        const length = clientMessageLength(head);
        // At most 9 bytes: every type clientMessageLength knows is sized by then.
        if (length === null) continue;
        passing = PASSED.has(head[0]!);
        if (passing) out.push(head);
        remaining = length - head.length;
        head = Buffer.alloc(0);
      }
      return out.length === 1 ? out[0]! : Buffer.concat(out);
    },
  };
}
