import { readdir, readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { connect } from 'node:net';
import WebSocket from 'ws';
import { apiAs, machineDir, promptShown, startServer, until, type GameVm } from './qemuLab';

// The cost of console recording per console-minute (issue 33's benchmark, the recording part):
// a real server with the qemu driver and a tiny-linux machine; a console viewer over the real
// console route asking for screen updates as noVNC does (Tight, ZRLE, Hextile, CopyRect, Raw; an
// incremental update request every 33 ms) for BENCH_SECONDS (60) per window; four windows: an
// idle shell and a busy terminal (`ls -l /bin` in a loop on the screen, started on the serial
// shell), each unrecorded and recorded (the workspace's recordConsoles switched between).
// Reported: bytes the viewer received, the recording's bytes uncompressed and on disk, and the
// server process tree's CPU time (QEMU excluded) per minute.
//
//   npm run bench:recording      (BENCH_SECONDS=30 for shorter windows, BENCH_PORT for a port)

const SECONDS = Number(process.env.BENCH_SECONDS || 60);
const TICKS = 100; // USER_HZ on Linux

/** CPU seconds of `pid` and its descendants, QEMU processes excluded. */
async function cpuSeconds(pid: number): Promise<number> {
  const stats = new Map<number, { ppid: number; comm: string; ticks: number }>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const text = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const close = text.lastIndexOf(')');
    if (close < 0) continue;
    const comm = text.slice(text.indexOf('(') + 1, close);
    const fields = text.slice(close + 2).split(' ');
    stats.set(Number(entry), {
      ppid: Number(fields[1]),
      comm,
      ticks: Number(fields[11]) + Number(fields[12]),
    });
  }
  let total = 0;
  const walk = (id: number) => {
    const s = stats.get(id);
    if (!s || s.comm.startsWith('qemu')) return;
    total += s.ticks;
    for (const [child, c] of stats) if (c.ppid === id) walk(child);
  };
  walk(pid);
  return total / TICKS;
}

/** A viewer as noVNC connects, asking for incremental updates every 33 ms; counts bytes. */
async function watch(url: string, seconds: number): Promise<number> {
  const socket = new WebSocket(url, ['binary']);
  let received = 0;
  let buffered = Buffer.alloc(0);
  let wanted: { n: number; resolve: (b: Buffer) => void } | null = null;
  const pump = () => {
    if (wanted && buffered.length >= wanted.n) {
      const out = buffered.subarray(0, wanted.n);
      buffered = buffered.subarray(wanted.n);
      const w = wanted;
      wanted = null;
      w.resolve(out);
    }
  };
  let handshaking = true;
  socket.on('message', (data: Buffer) => {
    received += data.length;
    if (!handshaking) return;
    buffered = Buffer.concat([buffered, data]);
    pump();
  });
  const read = (n: number) =>
    new Promise<Buffer>((resolve) => {
      wanted = { n, resolve };
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
  handshaking = false;
  // noVNC's encodings, its default quality 6 and compression 2.
  const encodings = [7, 16, 5, 1, 0, -223, -26, -254];
  const set = Buffer.alloc(4 + 4 * encodings.length);
  set.writeUInt8(2, 0);
  set.writeUInt16BE(encodings.length, 2);
  encodings.forEach((e, i) => set.writeInt32BE(e, 4 + 4 * i));
  socket.send(set);
  const request = (incremental: number) => {
    const r = Buffer.alloc(10);
    r.writeUInt8(3, 0);
    r.writeUInt8(incremental, 1);
    r.writeUInt16BE(width, 6);
    r.writeUInt16BE(height, 8);
    socket.send(r);
  };
  request(0);
  const timer = setInterval(() => request(1), 33);
  await new Promise((r) => setTimeout(r, seconds * 1000));
  clearInterval(timer);
  socket.close();
  await new Promise((r) => socket.once('close', r));
  return received;
}

async function main() {
  const server = await startServer({ RECORD_CONSOLES: 'false' });
  const dataDir = join(dirname(server.stateDir), 'data');
  try {
    const author = await apiAs(server.url, 'creator');
    const admin = await apiAs(server.url, 'admin');
    const { id } = await author<{ id: string }>('POST', 'workspace', { name: 'Recorded' });
    const stock = await author<Array<{ id: string; name: string }>>('GET', 'templates?term=tiny');
    const tiny = stock.find((t) => t.name === 'tiny-linux');
    if (!tiny) throw new Error('no stock template tiny-linux');
    await author('POST', 'template', { templateId: tiny.id, workspaceId: id });
    const workspace = await author('GET', `workspace/${id}`);
    const setRecording = (on: boolean) =>
      author('PUT', 'workspace', { ...workspace, audience: 'everyone', recordConsoles: on });
    await setRecording(false);
    const game = await admin<{ id: string; vms: GameVm[] }>('POST', 'gamespace', {
      resourceId: id,
      startGamespace: true,
      maxMinutes: 60,
    });
    const vm = game.vms[0]!;
    await promptShown(server.stateDir, vm);

    const window = async (label: string, recorded: boolean) => {
      await setRecording(recorded);
      const ticket = await admin<{ url: string; recorded: boolean }>('GET', `vm-console/${vm.id}`);
      if (ticket.recorded !== recorded) throw new Error('the ticket says otherwise');
      const before = await cpuSeconds(server.pid);
      const received = await watch(ticket.url, SECONDS);
      const cpu = (await cpuSeconds(server.pid)) - before;
      let stored = '';
      if (recorded) {
        const list = await until(
          'the recording to be finished',
          async () => {
            const all = await admin<Array<{ id: string; endedAt: string | null; bytes: number }>>(
              'GET',
              `gamespace/${game.id}/recordings`,
            );
            const last = all.at(-1);
            return last?.endedAt ? last : null;
          },
          30_000,
        );
        const file = join(dataDir, 'recordings', game.id, `${list.id}.rec.gz`);
        const onDisk = (await stat(file)).size;
        const perMinute = (n: number) => ((n * 60) / SECONDS / 1024).toFixed(1);
        stored = `, recording ${perMinute(list.bytes)} KiB/min uncompressed, ${perMinute(onDisk)} KiB/min on disk`;
      }
      const perMin = (cpu * 60) / SECONDS;
      console.log(
        `${label.padEnd(24)} viewer ${((received * 60) / SECONDS / 1024).toFixed(1)} KiB/min, ` +
          `server CPU ${perMin.toFixed(2)} s/min${stored}`,
      );
    };

    await window('idle shell, unrecorded', false);
    await window('idle shell, recorded', true);
    // A busy terminal: a listing scrolling on the machine's screen, started on its serial shell.
    const serial = connect(join(machineDir(server.stateDir, vm.id), 'serial.sock'));
    await new Promise((r) => serial.once('connect', r));
    serial.write('\nwhile :; do ls -l /bin; done > /dev/tty1 2>&1 &\n');
    await window('busy terminal, unrecorded', false);
    await window('busy terminal, recorded', true);
    serial.destroy();
  } finally {
    await server.stop();
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
