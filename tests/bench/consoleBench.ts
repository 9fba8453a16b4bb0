import { readdir, readFile } from 'node:fs/promises';
import WebSocket from 'ws';

// What the console benchmarks share: a viewer that connects to the console route as noVNC does,
// and the CPU time of the server process tree.

const TICKS = 100; // USER_HZ on Linux

/** `pid` and its descendants, QEMU processes excluded, with their /proc/{pid}/stat fields. */
async function processTree(pid: number): Promise<number[]> {
  const parents = new Map<number, { ppid: number; comm: string }>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const text = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const close = text.lastIndexOf(')');
    if (close < 0) continue;
    const fields = text.slice(close + 2).split(' ');
    parents.set(Number(entry), {
      ppid: Number(fields[1]),
      comm: text.slice(text.indexOf('(') + 1, close),
    });
  }
  const tree: number[] = [];
  const walk = (id: number) => {
    const p = parents.get(id);
    if (!p || p.comm.startsWith('qemu')) return;
    tree.push(id);
    for (const [child, c] of parents) if (c.ppid === id) walk(child);
  };
  walk(pid);
  return tree;
}

/** CPU seconds of `pid` and its descendants (all their threads), QEMU processes excluded. */
export async function cpuSeconds(pid: number): Promise<number> {
  let ticks = 0;
  for (const id of await processTree(pid)) {
    const text = await readFile(`/proc/${id}/stat`, 'utf8').catch(() => '');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    ticks += Number(fields[11] ?? 0) + Number(fields[12] ?? 0);
  }
  return ticks / TICKS;
}

/**
 * Seconds the main threads of `pid` and its descendants spent runnable but waiting for a CPU
 * (/proc/{pid}/schedstat): how much other work on the host held the event loops back.
 */
export async function waitSeconds(pid: number): Promise<number> {
  let ns = 0;
  for (const id of await processTree(pid)) {
    const text = await readFile(`/proc/${id}/schedstat`, 'utf8').catch(() => '');
    ns += Number(text.split(' ')[1] ?? 0);
  }
  return ns / 1e9;
}

export interface Viewer {
  socket: WebSocket;
  width: number;
  height: number;
  /** Bytes received so far, the handshake's included. */
  readonly received: number;
  /** A FramebufferUpdateRequest for the whole screen. */
  request(incremental: boolean): void;
  /** A PointerEvent: the pointer at (x, y), `buttons` held (1: the left one). */
  point(x: number, y: number, buttons: number): void;
  /** KeyEvents that type `text` on a US keyboard: Shift held where a key needs it. */
  type(text: string): void;
  /** Takes the bytes after the handshake, in order; until it is called they are kept. */
  onData(listener: (data: Buffer) => void): void;
  close(): Promise<void>;
}

const SHIFT = 0xffe1;
const RETURN = 0xff0d;
/** Characters typed with Shift on a US keyboard. */
const SHIFTED = /[A-Z~!@#$%^&*()_+{}|:"<>?]/;

/**
 * A viewer through the console route, as noVNC connects: RFB 3.8, security None, a shared
 * ClientInit, then noVNC's encodings (Tight, ZRLE, Hextile, CopyRect, Raw; quality 6,
 * compression 2). Resolves once the ServerInit is read.
 */
export async function openViewer(url: string): Promise<Viewer> {
  const socket = new WebSocket(url, ['binary']);
  let received = 0;
  let buffered = Buffer.alloc(0);
  let wanted: { n: number; resolve: (b: Buffer) => void } | null = null;
  let listener: ((data: Buffer) => void) | null = null;
  const pump = () => {
    if (wanted && buffered.length >= wanted.n) {
      const out = buffered.subarray(0, wanted.n);
      buffered = buffered.subarray(wanted.n);
      const w = wanted;
      wanted = null;
      w.resolve(out);
    }
  };
  socket.on('message', (data: Buffer) => {
    received += data.length;
    if (listener) return listener(data);
    buffered = Buffer.concat([buffered, data]);
    pump();
  });
  let why = '';
  const closed = new Promise<void>((r) =>
    socket.once('close', (code: number, reason: Buffer) => {
      why = `${code} ${reason.toString()}`;
      r();
    }),
  );
  const read = (n: number) =>
    new Promise<Buffer>((resolve, reject) => {
      wanted = { n, resolve };
      void closed.then(() => reject(new Error(`the console closed during the handshake: ${why}`)));
      pump();
    });
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  await read(12);
  socket.send(Buffer.from('RFB 003.008\n', 'latin1'));
  const count = (await read(1))[0]!;
  await read(count);
  socket.send(Buffer.of(1));
  await read(4);
  socket.send(Buffer.of(1));
  const init = await read(24);
  const width = init.readUInt16BE(0);
  const height = init.readUInt16BE(2);
  await read(init.readUInt32BE(20));
  // noVNC's encodings, its default quality 6 and compression 2.
  const encodings = [7, 16, 5, 1, 0, -223, -26, -254];
  const set = Buffer.alloc(4 + 4 * encodings.length);
  set.writeUInt8(2, 0);
  set.writeUInt16BE(encodings.length, 2);
  encodings.forEach((e, i) => set.writeInt32BE(e, 4 + 4 * i));
  socket.send(set);
  return {
    socket,
    width,
    height,
    get received() {
      return received;
    },
    request(incremental) {
      const r = Buffer.alloc(10);
      r.writeUInt8(3, 0);
      r.writeUInt8(incremental ? 1 : 0, 1);
      r.writeUInt16BE(width, 6);
      r.writeUInt16BE(height, 8);
      if (socket.readyState === WebSocket.OPEN) socket.send(r);
    },
    point(x, y, buttons) {
      const p = Buffer.alloc(6);
      p.writeUInt8(5, 0);
      p.writeUInt8(buttons, 1);
      p.writeUInt16BE(x, 2);
      p.writeUInt16BE(y, 4);
      if (socket.readyState === WebSocket.OPEN) socket.send(p);
    },
    type(text) {
      const key = (keysym: number, down: boolean) => {
        const k = Buffer.alloc(8);
        k.writeUInt8(4, 0);
        k.writeUInt8(down ? 1 : 0, 1);
        k.writeUInt32BE(keysym, 4);
        if (socket.readyState === WebSocket.OPEN) socket.send(k);
      };
      for (const char of text) {
        // QEMU turns a keysym into its key's scancode: the shifted character needs Shift held.
        const shifted = SHIFTED.test(char);
        const keysym = char === '\n' ? RETURN : char.charCodeAt(0);
        if (shifted) key(SHIFT, true);
        key(keysym, true);
        key(keysym, false);
        if (shifted) key(SHIFT, false);
      }
    },
    onData(next) {
      listener = next;
      const early = buffered;
      buffered = Buffer.alloc(0);
      if (early.length > 0) next(early);
    },
    async close() {
      if (socket.readyState !== WebSocket.CLOSED) socket.close();
      await closed;
    },
  };
}
