import { stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { connect } from 'node:net';
import { cpuSeconds, openViewer } from './consoleBench';
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
/** A viewer as noVNC connects, asking for incremental updates every 33 ms; counts bytes. */
async function watch(url: string, seconds: number): Promise<number> {
  const viewer = await openViewer(url);
  viewer.onData(() => undefined);
  viewer.request(false);
  const timer = setInterval(() => viewer.request(true), 33);
  await new Promise((r) => setTimeout(r, seconds * 1000));
  clearInterval(timer);
  await viewer.close();
  return viewer.received;
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
