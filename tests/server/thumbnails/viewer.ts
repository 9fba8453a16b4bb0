import { once } from 'node:events';
import WebSocket from 'ws';

// A console viewer for the thumbnail tests: connects to the console route as noVNC does (RFB
// 3.8, security None, a shared ClientInit), keeps the server's pixel format (the sim's 32 bpp
// little-endian 0x00RRGGBB) and only Raw updates, and holds its own copy of the screen, so a
// test can compare a thumbnail with what a real viewer of the console sees.

const RETURN = 0xff0d;

export interface ScreenViewer {
  width: number;
  height: number;
  /** The screen as received so far: one 0xRRGGBB number per pixel. */
  pixels: Uint32Array;
  /** Asks for the whole screen and reads the update. */
  refresh(): Promise<void>;
  /** KeyEvents that type `text` (letters, digits, space and newline). */
  type(text: string): void;
  close(): Promise<void>;
}

export async function openScreenViewer(url: string): Promise<ScreenViewer> {
  const socket = new WebSocket(url, ['binary']);
  let buffered = Buffer.alloc(0);
  const closed = once(socket, 'close');
  socket.on('message', (data: Buffer) => {
    buffered = Buffer.concat([buffered, data]);
    socket.emit('bytes');
  });
  const read = async (n: number): Promise<Buffer> => {
    while (buffered.length < n) {
      if (socket.readyState >= WebSocket.CLOSING) throw new Error('the console closed');
      await Promise.race([once(socket, 'bytes'), closed]);
    }
    const out = buffered.subarray(0, n);
    buffered = buffered.subarray(n);
    return out;
  };
  await once(socket, 'open');
  await read(12);
  socket.send(Buffer.from('RFB 003.008\n', 'latin1'));
  await read((await read(1))[0]!);
  socket.send(Buffer.of(1));
  await read(4);
  socket.send(Buffer.of(1));
  const init = await read(24);
  const width = init.readUInt16BE(0);
  const height = init.readUInt16BE(2);
  if (init.readUInt8(4) !== 32 || init.readUInt8(6) !== 0) throw new Error('not 32 bpp LE');
  await read(init.readUInt32BE(20));
  const pixels = new Uint32Array(width * height);

  const key = (keysym: number, down: boolean) => {
    const k = Buffer.alloc(8);
    k.writeUInt8(4, 0);
    k.writeUInt8(down ? 1 : 0, 1);
    k.writeUInt32BE(keysym, 4);
    socket.send(k);
  };

  return {
    width,
    height,
    pixels,
    async refresh() {
      const r = Buffer.alloc(10);
      r.writeUInt8(3, 0);
      r.writeUInt16BE(width, 6);
      r.writeUInt16BE(height, 8);
      socket.send(r);
      const head = await read(4);
      if (head[0] !== 0) throw new Error(`server message ${head[0]}`);
      for (let n = head.readUInt16BE(2); n > 0; n--) {
        const rect = await read(12);
        const [x, y, w, h] = [0, 2, 4, 6].map((at) => rect.readUInt16BE(at)) as [
          number,
          number,
          number,
          number,
        ];
        if (rect.readInt32BE(8) !== 0) throw new Error('not Raw');
        const data = await read(w * h * 4);
        for (let j = 0; j < h; j++) {
          for (let i = 0; i < w; i++) {
            pixels[(y + j) * width + x + i] = data.readUInt32LE((j * w + i) * 4) & 0xffffff;
          }
        }
      }
    },
    type(text) {
      for (const char of text) {
        const keysym = char === '\n' ? RETURN : char.charCodeAt(0);
        key(keysym, true);
        key(keysym, false);
      }
    },
    async close() {
      if (socket.readyState !== WebSocket.CLOSED) socket.close();
      await closed;
    },
  };
}
