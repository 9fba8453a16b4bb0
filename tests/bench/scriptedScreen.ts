import { randomBytes } from 'node:crypto';
import { createByteQueue } from '../../server/hypervisor/sim/console/byteQueue';
import {
  DEFAULT_PIXEL_FORMAT,
  ENCODING_RAW,
  parseClientMessage,
  serverInit,
} from '../../server/hypervisor/sim/console/messages';
import type { RfbSession, RfbTransport } from '../../server/hypervisor/sim/console/rfb';
import type { VncScreen } from '../pvesim/vnc';

// A machine's screen whose timing the benchmark controls, served by the PVE API simulator in
// place of a drawn console (tests/pvesim, `vncScreen`): from the viewer's ClientInit on, an RFB
// server whose screen changes every `frameMs`, as a busy terminal's does. Like QEMU's VNC server,
// it sends an update only when the viewer has asked for one, and one update carries every change
// made since the last: a change waits upstream until the viewer's request arrives.
//
// Each update is one Raw rectangle of RECT_W x RECT_H pixels (5 KiB, about what a scrolling
// terminal costs a noVNC viewer per frame: 9 MiB a minute at 30 updates a second). Its first
// eight bytes are the time (performance.now(), float64 little-endian) of the oldest change it
// carries: the moment that screen update existed upstream. The viewer, in the same process, reads
// it on arrival. The rest are bytes from a 1 MiB pool, a third of them random and the others
// zero, so that gzip finds them about as compressible as a busy console's stream.

export const RECT_W = 40;
export const RECT_H = 32;
const BYTES_PER_PIXEL = 4;
export const STAMP_BYTES = 8;
const WIDTH = 720;
const HEIGHT = 400;
const POOL_BYTES = 1 << 20;

const pool = (() => {
  const random = randomBytes(POOL_BYTES);
  for (let i = 0; i < POOL_BYTES; i++) if (random[i]! % 3 !== 0) random[i] = 0;
  return random;
})();

/** The screen every VM's console shows: a change every `frameMs` from the viewer's ClientInit. */
export function scriptedScreen(frameMs: number): VncScreen {
  let offset = 0;
  const pixels = RECT_W * RECT_H * BYTES_PER_PIXEL;

  return (transport: RfbTransport, vm): RfbSession => {
    const pending = createByteQueue();
    let started = false;
    let ended = false;
    let frame = 0;
    /** When the oldest change not yet sent was made; null: the viewer has the screen as it is. */
    let changedAt: number | null = null;
    let asked = false;
    let timer: NodeJS.Timeout | undefined;

    const update = (stamp: number) => {
      const head = Buffer.alloc(4 + 12);
      head.writeUInt8(0, 0);
      head.writeUInt16BE(1, 2);
      const columns = WIDTH / RECT_W;
      head.writeUInt16BE((frame % columns) * RECT_W, 4);
      head.writeUInt16BE((Math.floor(frame / columns) * RECT_H) % (HEIGHT - RECT_H), 6);
      head.writeUInt16BE(RECT_W, 8);
      head.writeUInt16BE(RECT_H, 10);
      head.writeInt32BE(ENCODING_RAW, 12);
      if (offset + pixels > POOL_BYTES) offset = 0;
      const body = Buffer.from(pool.subarray(offset, offset + pixels));
      offset += pixels;
      body.writeDoubleLE(stamp, 0);
      frame += 1;
      transport.send(Buffer.concat([head, body]));
    };
    const flush = () => {
      if (!asked || changedAt === null || ended) return;
      asked = false;
      const stamp = changedAt;
      changedAt = null;
      update(stamp);
    };

    return {
      receive(data) {
        pending.push(data);
        if (!started) {
          if (pending.length < 1) return;
          pending.take(1);
          started = true;
          transport.send(serverInit(WIDTH, HEIGHT, DEFAULT_PIXEL_FORMAT, vm.name));
          timer = setInterval(() => {
            changedAt ??= performance.now();
            flush();
          }, frameMs);
        }
        for (;;) {
          const parsed = parseClientMessage(pending.peek(pending.length));
          if (!parsed) return;
          pending.take(parsed.size);
          if (parsed.message.type !== 'updateRequest') continue;
          // A full request is answered at once (with the screen's state now); an incremental one
          // when something changed.
          if (!parsed.message.incremental) changedAt ??= performance.now();
          asked = true;
          flush();
        }
      },
      end() {
        ended = true;
        clearInterval(timer);
      },
    };
  };
}
