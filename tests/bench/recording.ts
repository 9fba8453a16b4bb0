import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { connect } from 'node:net';
import { DESKTOP_DETAIL } from '../labs/images';
import { cpuSeconds, openViewer } from './consoleBench';
import {
  apiAs,
  BUILD_DESKTOP,
  DESKTOP_IMAGE,
  machineDir,
  promptShown,
  startServer,
  until,
  type Api,
  type BenchServer,
  type GameVm,
} from './qemuLab';

// The cost of console recording per console-minute (issue 33's benchmark, the recording part):
// a real server with the qemu driver and a tiny-linux machine; a console viewer over the real
// console route asking for screen updates as noVNC does (Tight, ZRLE, Hextile, CopyRect, Raw; an
// incremental update request every 33 ms) for BENCH_SECONDS (60) per window; four windows: an
// idle shell and a busy terminal (`ls -l /bin` in a loop on the screen, started on the serial
// shell), each unrecorded and recorded (the workspace's recordConsoles switched between).
// BENCH_DESKTOP=1 adds four windows on a Debian desktop machine (debian-desktop.qcow2, 1280x800,
// once the tiny machine is gone): the idle desktop, and a busy one (`ls -l /usr/bin` in a loop in
// its xterm, typed through a viewer's key events); BENCH_DESKTOP=only runs these alone.
// Reported: bytes the viewer received (and of them the first frame's, the whole screen), the
// recording's bytes uncompressed and on disk, and the server process tree's CPU time (QEMU
// excluded) per minute.
//
//   npm run bench:recording      (BENCH_SECONDS=30 for shorter windows, BENCH_PORT for a port)

const SECONDS = Number(process.env.BENCH_SECONDS || 60);
const DESKTOP = process.env.BENCH_DESKTOP || '';
/** The desktop boots in about 110 s alone under software emulation; a shared host is slower. */
const DESKTOP_BOOT_MS = 600_000;
/** How long a command typed into the xterm may take to show it ran before it is typed again. */
const TYPED_MS = 15_000;

/** No byte for this long after the first request: the first frame is complete. */
const QUIET_MS = 500;

/**
 * A viewer as noVNC connects for `seconds`: the whole screen first (its bytes told apart: once
 * QUIET_MS pass without one), then an incremental update request every 33 ms; counts bytes.
 */
async function watch(url: string, seconds: number) {
  const ends = performance.now() + seconds * 1000;
  const viewer = await openViewer(url);
  viewer.onData(() => undefined);
  const handshake = viewer.received;
  viewer.request(false);
  let size = handshake;
  let changed = performance.now();
  const firstFrame = await until(
    'the first frame',
    async () => {
      if (viewer.received !== size) [size, changed] = [viewer.received, performance.now()];
      return size > handshake && performance.now() - changed > QUIET_MS ? size - handshake : null;
    },
    30_000,
  );
  const timer = setInterval(() => viewer.request(true), 33);
  await new Promise((r) => setTimeout(r, ends - performance.now()));
  clearInterval(timer);
  await viewer.close();
  return { received: viewer.received, firstFrame };
}

interface Lab {
  gameId: string;
  vm: GameVm;
  setRecording(on: boolean): Promise<unknown>;
}

/** A workspace of one machine of the stock template `stock`, and its game, started. */
async function launchLab(author: Api, admin: Api, name: string, stock: string): Promise<Lab> {
  const { id } = await author<{ id: string }>('POST', 'workspace', { name });
  const found = await author<Array<{ id: string; name: string }>>('GET', `templates?term=${stock}`);
  const template = found.find((t) => t.name === stock);
  if (!template) throw new Error(`no stock template ${stock}`);
  await author('POST', 'template', { templateId: template.id, workspaceId: id });
  const workspace = await author('GET', `workspace/${id}`);
  const setRecording = (on: boolean) =>
    author('PUT', 'workspace', { ...workspace, audience: 'everyone', recordConsoles: on });
  await setRecording(false);
  const game = await admin<{ id: string; vms: GameVm[] }>('POST', 'gamespace', {
    resourceId: id,
    startGamespace: true,
    maxMinutes: 60,
  });
  return { gameId: game.id, vm: game.vms[0]!, setRecording };
}

/** One window of SECONDS on the lab's console, recorded or not; prints its costs per minute. */
async function window(server: BenchServer, admin: Api, lab: Lab, label: string, recorded: boolean) {
  const dataDir = join(dirname(server.stateDir), 'data');
  await lab.setRecording(recorded);
  const ticket = await admin<{ url: string; recorded: boolean }>('GET', `vm-console/${lab.vm.id}`);
  if (ticket.recorded !== recorded) throw new Error('the ticket says otherwise');
  const before = await cpuSeconds(server.pid);
  const { received, firstFrame } = await watch(ticket.url, SECONDS);
  const cpu = (await cpuSeconds(server.pid)) - before;
  const perMinute = (n: number) => ((n * 60) / SECONDS / 1024).toFixed(1);
  let stored = '';
  if (recorded) {
    const last = await until(
      'the recording to be finished',
      async () => {
        const all = await admin<Array<{ id: string; endedAt: string | null; bytes: number }>>(
          'GET',
          `gamespace/${lab.gameId}/recordings`,
        );
        const newest = all.at(-1);
        return newest?.endedAt ? newest : null;
      },
      30_000,
    );
    const onDisk = (await stat(join(dataDir, 'recordings', lab.gameId, `${last.id}.rec.gz`))).size;
    stored = `, recording ${perMinute(last.bytes)} KiB/min uncompressed, ${perMinute(onDisk)} KiB/min on disk`;
  }
  console.log(
    `${label.padEnd(26)} viewer ${perMinute(received)} KiB/min ` +
      `(first frame ${(firstFrame / 1024).toFixed(1)} KiB), ` +
      `server CPU ${((cpu * 60) / SECONDS).toFixed(2)} s/min${stored}`,
  );
}

async function tinyCases(server: BenchServer, author: Api, admin: Api) {
  const lab = await launchLab(author, admin, 'Recorded', 'tiny-linux');
  await promptShown(server.stateDir, lab.vm);
  await window(server, admin, lab, 'idle shell, unrecorded', false);
  await window(server, admin, lab, 'idle shell, recorded', true);
  // A busy terminal: a listing scrolling on the machine's screen, started on its serial shell.
  const serial = connect(join(machineDir(server.stateDir, lab.vm.id), 'serial.sock'));
  await new Promise((r) => serial.once('connect', r));
  serial.write('\nwhile :; do ls -l /bin; done > /dev/tty1 2>&1 &\n');
  await window(server, admin, lab, 'busy terminal, unrecorded', false);
  await window(server, admin, lab, 'busy terminal, recorded', true);
  serial.destroy();
  await admin('DELETE', `gamespace/${lab.gameId}`);
}

/**
 * Types `command` into the desktop's xterm (90x26 at +24+24, focused by a click) through a
 * viewer's key events, after `echo <token> | topoplay-copy`, and again until the guest agent
 * hands the token back: the desktop is up and took the command.
 */
async function typeInXterm(admin: Api, vm: GameVm, command: string, timeoutMs: number) {
  const token = `typed${Date.now() % 1_000_000}`;
  const copied = async () =>
    (await admin<{ text: string }>('POST', `vm/${vm.id}/clipboard/copy`)).text.includes(token) ||
    null;
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const ticket = await admin<{ url: string }>('GET', `vm-console/${vm.id}`);
    const viewer = await openViewer(ticket.url);
    viewer.onData(() => undefined);
    const [x, y] = [Math.round(viewer.width * 0.15), Math.round(viewer.height * 0.25)];
    viewer.point(x, y, 1);
    viewer.point(x, y, 0);
    viewer.type(`echo ${token} | topoplay-copy${command ? `; ${command}` : ''}\n`);
    const done = await until('the typed command', copied, TYPED_MS).catch(() => null);
    await viewer.close();
    if (done) return;
    if (performance.now() > deadline) throw new Error(`the desktop did not take ${command}`);
  }
}

async function desktopCases(server: BenchServer, author: Api, admin: Api) {
  await admin('POST', 'template-detail', {
    name: 'linux-desktop',
    description: 'A Debian 12 desktop.',
    networks: 'lan',
    isPublished: true,
    detail: JSON.stringify(DESKTOP_DETAIL),
  });
  const started = performance.now();
  const lab = await launchLab(author, admin, 'Recorded desktop', 'linux-desktop');
  await typeInXterm(admin, lab.vm, '', DESKTOP_BOOT_MS);
  console.log(`desktop up in ${Math.round((performance.now() - started) / 1000)} s`);
  await window(server, admin, lab, 'idle desktop, unrecorded', false);
  await window(server, admin, lab, 'idle desktop, recorded', true);
  await typeInXterm(admin, lab.vm, 'while true; do ls -l /usr/bin; done', TYPED_MS * 4);
  await window(server, admin, lab, 'busy desktop, unrecorded', false);
  await window(server, admin, lab, 'busy desktop, recorded', true);
}

async function main() {
  if (DESKTOP && !existsSync(DESKTOP_IMAGE)) {
    throw new Error(`BENCH_DESKTOP: no ${DESKTOP_IMAGE}; build it with ${BUILD_DESKTOP}`);
  }
  const server = await startServer({ RECORD_CONSOLES: 'false' });
  try {
    const author = await apiAs(server.url, 'creator');
    const admin = await apiAs(server.url, 'admin');
    if (DESKTOP !== 'only') await tinyCases(server, author, admin);
    if (DESKTOP) await desktopCases(server, author, admin);
  } finally {
    await server.stop();
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
