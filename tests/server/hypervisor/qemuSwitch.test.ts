import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ensureSwitch,
  switchDaemonPath,
  type SwitchClient,
} from '../../../server/hypervisor/qemu/switch';

// The qemu driver's layer-2 switch, driven through its client against fake NICs: unix socket
// servers that speak QEMU's stream netdev framing (a 4-byte big-endian length, then the frame) and
// accept one connection at a time, as QEMU does. A last test puts two real QEMU processes on it.

const BROADCAST = Buffer.alloc(6, 0xff);
/** A locally administered unicast address, like the ones the driver gives its NICs. */
const mac = (n: number) => Buffer.from([0x52, 0x54, 0x00, 0xab, 0x00, n]);
/** IEEE 802 local experimental EtherType: no guest stack would act on these frames. */
const ETHERTYPE = Buffer.from([0x88, 0xb5]);
const frame = (to: Buffer, from: Buffer, text: string) =>
  Buffer.concat([to, from, ETHERTYPE, Buffer.from(text)]);
/** QEMU never sends a frame longer than this; switchd.mjs treats a longer length as garbage. */
const MAX_FRAME = 65_536;
const framed = (body: Buffer) => {
  const header = Buffer.alloc(4);
  header.writeUInt32BE(body.length);
  return Buffer.concat([header, body]);
};

interface FakeNic {
  /** Payloads of the test frames received, in order. */
  texts: string[];
  frames: Buffer[];
  connections: number;
  /** Whether the switch is connected now. */
  connected(): boolean;
  send(body: Buffer): void;
  sendRaw(bytes: Buffer): void;
  close(): Promise<void>;
}

/** A NIC socket standing in for QEMU's stream netdev in server mode. */
function fakeNic(path: string): Promise<FakeNic> {
  let socket: Socket | null = null;
  const server: Server = createServer({ pauseOnConnect: false });
  const nic: FakeNic = {
    texts: [],
    frames: [],
    connections: 0,
    connected: () => socket !== null,
    send: (body) => socket?.write(framed(body)),
    sendRaw: (bytes) => socket?.write(bytes),
    close: () =>
      new Promise((resolve) => {
        socket?.destroy();
        server.close(() => resolve());
      }),
  };
  // QEMU serves one client and accepts the next once it has gone; the backlog holds the rest.
  server.maxConnections = 1;
  server.on('connection', (client) => {
    socket = client;
    nic.connections += 1;
    let pending = Buffer.alloc(0);
    client.on('data', (chunk) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 4 && pending.length >= 4 + pending.readUInt32BE(0)) {
        const body = pending.subarray(4, 4 + pending.readUInt32BE(0));
        nic.frames.push(body);
        if (body.subarray(12, 14).equals(ETHERTYPE)) nic.texts.push(body.subarray(14).toString());
        pending = pending.subarray(4 + body.length);
      }
    });
    client.on('error', () => {});
    client.on('close', () => {
      if (socket === client) socket = null;
    });
  });
  return new Promise((resolve) => server.listen(path, () => resolve(nic)));
}

/** Whether a pid is a live process. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('qemu layer-2 switch', () => {
  let stateDir: string;
  let nicDir: string;
  const nics: FakeNic[] = [];
  const clients: SwitchClient[] = [];
  let client: SwitchClient;

  const switchPid = () => Number.parseInt(readFileSync(join(stateDir, 'switch.pid'), 'utf8'), 10);

  /** A fake NIC attached to the switch as `port` in `segment`, once the switch has connected. */
  const wire = async (port: string, segment: string) => {
    const nic = await fakeNic(join(nicDir, `${port}.sock`));
    nics.push(nic);
    await client.attach(port, join(nicDir, `${port}.sock`), segment);
    await expect.poll(() => nic.connected()).toBe(true);
    await expect
      .poll(async () => (await client.list()).find((p) => p.port === port)?.connected)
      .toBe(true);
    return nic;
  };

  /** One control request on a connection of its own, as raw text, answered with the raw line. */
  const rawControl = (lines: string) =>
    new Promise<string[]>((resolve, reject) => {
      const socket = createConnection({ path: join(stateDir, 'switch.sock') });
      const expected = lines.split('\n').filter((line) => line.trim() !== '').length;
      let text = '';
      socket.setEncoding('utf8');
      socket.on('error', reject);
      socket.on('connect', () => socket.write(lines));
      socket.on('data', (chunk: string) => {
        text += chunk;
        const answers = text.split('\n').filter((line) => line !== '');
        if (answers.length === expected) {
          socket.destroy();
          resolve(answers);
        }
      });
    });

  beforeAll(async () => {
    stateDir = mkdtempSync(join(tmpdir(), 'topoplay-switch-'));
    nicDir = mkdtempSync(join(tmpdir(), 'topoplay-nics-'));
    client = await ensureSwitch(stateDir);
    clients.push(client);
  });

  afterAll(async () => {
    const pid = existsSync(join(stateDir, 'switch.pid')) ? switchPid() : NaN;
    await client.stop().catch(() => {});
    if (pid > 0 && alive(pid)) process.kill(pid, 'SIGKILL');
    for (const each of clients) await each.close();
    for (const nic of nics) await nic.close();
    rmSync(stateDir, { recursive: true, force: true });
    rmSync(nicDir, { recursive: true, force: true });
  });

  it('carries frames between the ports of one segment and never into another', async () => {
    const a = await wire('seg-a', 'lan#one');
    const b = await wire('seg-b', 'lan#one');
    const other = await wire('seg-other', 'lan#two');
    const witness = await wire('seg-witness', 'lan#two');

    a.send(frame(BROADCAST, mac(1), 'a-broadcast'));
    a.send(frame(mac(2), mac(1), 'a-to-b'));
    b.send(frame(mac(1), mac(2), 'b-to-a'));
    await expect.poll(() => b.texts).toEqual(['a-broadcast', 'a-to-b']);
    await expect.poll(() => a.texts).toEqual(['b-to-a']);

    // The switch handles frames in order, so once a later frame of the other segment arrives,
    // anything leaked from the first segment would have arrived before it.
    witness.send(frame(BROADCAST, mac(4), 'two-broadcast'));
    await expect.poll(() => other.texts).toEqual(['two-broadcast']);
    expect(witness.texts).toEqual([]);
  });

  it('sends unicast to a learned address to that port only and floods unknown ones', async () => {
    const a = await wire('learn-a', 'lan#learn');
    const b = await wire('learn-b', 'lan#learn');
    const c = await wire('learn-c', 'lan#learn');

    a.send(frame(BROADCAST, mac(11), 'hello from a'));
    await expect.poll(() => c.texts).toEqual(['hello from a']);
    b.send(frame(mac(11), mac(12), 'b-to-a'));
    await expect.poll(() => a.texts).toEqual(['b-to-a']);
    b.send(frame(mac(99), mac(12), 'to nobody yet'));
    await expect.poll(() => a.texts).toEqual(['b-to-a', 'to nobody yet']);
    await expect.poll(() => c.texts).toEqual(['hello from a', 'to nobody yet']);
    expect(b.texts).toEqual(['hello from a']);
  });

  it('moves a port to another segment and forgets what it learned there', async () => {
    const a = await wire('move-a', 'lan#red');
    const b = await wire('move-b', 'lan#red');
    const c = await wire('move-c', 'lan#red');
    const blue = await wire('move-blue', 'lan#blue');

    a.send(frame(BROADCAST, mac(21), 'a before the move'));
    await expect.poll(() => b.texts).toEqual(['a before the move']);
    await client.move('move-a', 'lan#blue');
    expect((await client.list()).find((p) => p.port === 'move-a')?.segment).toBe('lan#blue');

    // a's address is no longer known in red: unicast to it floods red and never reaches a.
    b.send(frame(mac(21), mac(22), 'b to where a was'));
    await expect.poll(() => c.texts).toEqual(['a before the move', 'b to where a was']);
    a.send(frame(BROADCAST, mac(21), 'a after the move'));
    await expect.poll(() => blue.texts).toEqual(['a after the move']);
    b.send(frame(BROADCAST, mac(22), 'red only'));
    await expect.poll(() => c.texts).toHaveLength(3);
    expect(a.texts).toEqual([]);
    expect(b.texts).toEqual(['a before the move']);

    // The empty segment disconnects a port: nothing it sends goes anywhere.
    await client.move('move-a', '');
    a.send(frame(BROADCAST, mac(21), 'a nowhere'));
    blue.send(frame(mac(21), mac(23), 'blue to a'));
    const marker = await wire('move-marker', 'lan#blue');
    marker.send(frame(BROADCAST, mac(24), 'marker'));
    await expect.poll(() => blue.texts).toEqual(['a after the move', 'marker']);
    expect(a.texts).toEqual([]);
  });

  it('detaches a port: its connection closes and it is not wired again', async () => {
    const a = await wire('detach-a', 'lan#detach');
    const b = await wire('detach-b', 'lan#detach');
    await client.detach('detach-a');
    await expect.poll(() => a.connected()).toBe(false);
    expect((await client.list()).map((p) => p.port)).not.toContain('detach-a');
    await expect(client.detach('detach-a')).rejects.toThrow(/no port/);

    // The port's socket is still there (its machine runs on): the switch does not come back.
    b.send(frame(BROADCAST, mac(32), 'after detach'));
    const c = await wire('detach-c', 'lan#detach');
    c.send(frame(BROADCAST, mac(33), 'from c'));
    await expect.poll(() => b.texts).toEqual(['from c']);
    expect(a.connections).toBe(1);
    expect(a.texts).toEqual([]);
  });

  it('answers malformed control input with an error and keeps running', async () => {
    const answers = await rawControl(
      [
        'not json',
        '[1,2]',
        '{"op":"fly"}',
        '{"op":"attach","port":"x"}',
        '{"op":"attach","port":"x","path":"relative.sock","segment":"lan"}',
        `{"op":"attach","port":"x","path":"/${'a'.repeat(200)}","segment":"lan"}`,
        '{"op":"move","port":"nobody","segment":"lan"}',
        '{"op":"ping"}',
        '',
      ].join('\n'),
    );
    const replies = answers.map((line) => JSON.parse(line) as { ok: boolean; error?: string });
    expect(replies.slice(0, 7).map((reply) => reply.ok)).toEqual(Array(7).fill(false));
    expect(replies.slice(0, 7).every((reply) => typeof reply.error === 'string')).toBe(true);
    expect(replies[7]).toEqual({ ok: true, pid: switchPid() });
    await expect(client.attach('', '/tmp/x.sock', 'lan')).rejects.toThrow(/port must be/);
    expect((await client.list()).map((p) => p.port)).not.toContain('x');
  });

  it('closes a connection that announces an oversized frame, then connects again', async () => {
    const a = await wire('big-a', 'lan#big');
    const b = await wire('big-b', 'lan#big');
    const length = Buffer.alloc(4);
    length.writeUInt32BE(MAX_FRAME + 1);
    a.sendRaw(length);
    await expect.poll(() => a.connections, { timeout: 5_000 }).toBe(2);
    await expect.poll(() => a.connected()).toBe(true);
    a.send(frame(BROADCAST, mac(41), 'after reconnect'));
    await expect.poll(() => b.texts).toEqual(['after reconnect']);
  });

  it('connects to a NIC socket that appears after the port was attached', async () => {
    const path = join(nicDir, 'late.sock');
    await client.attach('late', path, 'lan#late');
    const early = await wire('late-peer', 'lan#late');
    expect((await client.list()).find((p) => p.port === 'late')?.connected).toBe(false);

    const late = await fakeNic(path);
    nics.push(late);
    await expect.poll(() => late.connected(), { timeout: 5_000 }).toBe(true);
    await expect
      .poll(async () => (await client.list()).find((p) => p.port === 'late')?.connected)
      .toBe(true);
    early.send(frame(BROADCAST, mac(51), 'welcome'));
    await expect.poll(() => late.texts).toEqual(['welcome']);
  });

  it('lets only one switch run per state folder', async () => {
    const second = spawn(process.execPath, [switchDaemonPath(), stateDir], { stdio: 'ignore' });
    const code = await new Promise<number | null>((resolve) => second.on('exit', resolve));
    expect(code).toBe(0);
    expect((await client.list()).length).toBeGreaterThan(0);
  });

  it('restores every port after the switch is killed and started again', async () => {
    const a = await wire('restart-a', 'lan#restart');
    const b = await wire('restart-b', 'lan#restart');
    const before = await client.list();
    const pid = switchPid();

    process.kill(pid, 'SIGKILL');
    await expect.poll(() => alive(pid)).toBe(false);
    await expect.poll(() => a.connected()).toBe(false);

    client = await ensureSwitch(stateDir);
    clients.push(client);
    expect(switchPid()).not.toBe(pid);
    expect(
      (await client.list()).map(({ port, path, segment }) => ({ port, path, segment })),
    ).toEqual(before.map(({ port, path, segment }) => ({ port, path, segment })));
    await expect.poll(() => a.connections).toBe(2);
    await expect.poll(() => b.connections).toBe(2);
    await expect
      .poll(async () => (await client.list()).filter((p) => p.port.startsWith('restart-')))
      .toSatisfy((ports: Array<{ connected: boolean }>) => ports.every((p) => p.connected));
    a.send(frame(BROADCAST, mac(61), 'after restart'));
    await expect.poll(() => b.texts).toEqual(['after restart']);
  });

  it('stops on SIGTERM, removing its socket and pid file but keeping its table', async () => {
    const pid = switchPid();
    await client.stop();
    // stop() returns once the switch has exited; this process reaps it a moment later.
    await expect.poll(() => alive(pid)).toBe(false);
    expect(existsSync(join(stateDir, 'switch.sock'))).toBe(false);
    expect(existsSync(join(stateDir, 'switch.pid'))).toBe(false);
    expect(readFileSync(join(stateDir, 'switch.json'), 'utf8')).toContain('restart-a');

    // The client starts the switch again on its next request.
    expect((await client.list()).map((p) => p.port)).toContain('restart-a');
    expect(switchPid()).not.toBe(pid);
  });
});

const QEMU = 'qemu-system-x86_64';
const hasQemu = spawnSync(QEMU, ['--version']).status === 0;

/** Sends QMP commands to a QEMU process and waits for each answer. */
async function qmp(path: string) {
  const socket = createConnection({ path });
  socket.setEncoding('utf8');
  socket.on('error', () => {});
  const answers: Array<(reply: unknown) => void> = [];
  let buffered = '';
  // The greeting comes first and is answered by nothing sent.
  let greeted: () => void;
  const greeting = new Promise<void>((resolve) => (greeted = resolve));
  socket.on('data', (chunk: string) => {
    buffered += chunk;
    let end: number;
    while ((end = buffered.indexOf('\n')) >= 0) {
      const message = JSON.parse(buffered.slice(0, end)) as Record<string, unknown>;
      buffered = buffered.slice(end + 1);
      if ('QMP' in message) greeted();
      else if ('return' in message || 'error' in message) answers.shift()?.(message);
    }
  });
  await greeting;
  const execute = (command: string, args?: Record<string, unknown>) =>
    new Promise<unknown>((resolve) => {
      answers.push(resolve);
      socket.write(`${JSON.stringify({ execute: command, arguments: args })}\n`);
    });
  await execute('qmp_capabilities');
  return { execute, close: () => socket.destroy() };
}

/** The frames of a pcap file (QEMU's filter-dump writes the classic format, host byte order). */
function pcapFrames(path: string): Buffer[] {
  const file = existsSync(path) ? readFileSync(path) : Buffer.alloc(0);
  const frames: Buffer[] = [];
  for (let at = 24; at + 16 <= file.length;) {
    const length = file.readUInt32LE(at + 8);
    frames.push(file.subarray(at + 16, at + 16 + length));
    at += 16 + length;
  }
  return frames;
}

/** A gratuitous RARP that QEMU's `announce-self` sends from a NIC with this address. */
const isAnnouncement = (body: Buffer, from: Buffer) =>
  body.subarray(12, 14).equals(Buffer.from([0x80, 0x35])) && body.subarray(6, 12).equals(from);

describe.skipIf(!hasQemu)('qemu layer-2 switch with real QEMU processes', () => {
  let stateDir: string;
  let vmDir: string;
  const processes: ChildProcess[] = [];
  const nics: FakeNic[] = [];
  const clients: SwitchClient[] = [];
  const macA = Buffer.from([0x52, 0x54, 0x00, 0xcd, 0x00, 0x01]);
  const macB = Buffer.from([0x52, 0x54, 0x00, 0xcd, 0x00, 0x02]);

  /**
   * A machine with one e1000 NIC on a stream netdev in server mode and no disk: its firmware finds
   * nothing to boot, which is enough, since `announce-self` makes QEMU itself send frames from the
   * NIC and filter-dump records the frames that reach it.
   */
  const machine = (name: string, address: Buffer) => {
    const hex = [...address].map((byte) => byte.toString(16).padStart(2, '0')).join(':');
    const child = spawn(
      QEMU,
      [
        ...['-nodefaults', '-display', 'none', '-m', '32', '-accel', 'tcg'],
        ...['-qmp', `unix:${join(vmDir, `${name}.qmp`)},server=on,wait=off`],
        '-netdev',
        `stream,id=n0,server=on,addr.type=unix,addr.path=${join(vmDir, `${name}.sock`)}`,
        // No option ROM: the network boot firmware would fill the segment with DHCP requests.
        ...['-device', `e1000,netdev=n0,mac=${hex},romfile=`],
        ...['-object', `filter-dump,id=d0,netdev=n0,file=${join(vmDir, `${name}.pcap`)}`],
      ],
      { stdio: 'ignore' },
    );
    processes.push(child);
    return child;
  };

  beforeAll(() => {
    stateDir = mkdtempSync(join(tmpdir(), 'topoplay-switchq-'));
    vmDir = mkdtempSync(join(tmpdir(), 'topoplay-vms-'));
  });

  afterAll(async () => {
    for (const child of processes) child.kill('SIGKILL');
    const pid = Number.parseInt(
      existsSync(join(stateDir, 'switch.pid'))
        ? readFileSync(join(stateDir, 'switch.pid'), 'utf8')
        : '',
      10,
    );
    for (const each of clients) await each.stop().catch(() => {});
    if (pid > 0 && alive(pid)) process.kill(pid, 'SIGKILL');
    for (const nic of nics) await nic.close();
    rmSync(stateDir, { recursive: true, force: true });
    rmSync(vmDir, { recursive: true, force: true });
  });

  it('joins two machines in one segment, keeps another segment out, and survives a switch restart', async () => {
    machine('a', macA);
    machine('b', macB);
    await expect.poll(() => existsSync(join(vmDir, 'a.qmp')), { timeout: 10_000 }).toBe(true);
    await expect.poll(() => existsSync(join(vmDir, 'b.qmp')), { timeout: 10_000 }).toBe(true);
    const qmpA = await qmp(join(vmDir, 'a.qmp'));

    let client = await ensureSwitch(stateDir);
    clients.push(client);
    const observer = await fakeNic(join(vmDir, 'observer.sock'));
    const outsider = await fakeNic(join(vmDir, 'outsider.sock'));
    const neighbour = await fakeNic(join(vmDir, 'neighbour.sock'));
    nics.push(observer, outsider, neighbour);
    await client.attach('a/0', join(vmDir, 'a.sock'), 'lan#one');
    await client.attach('b/0', join(vmDir, 'b.sock'), 'lan#one');
    await client.attach('observer', join(vmDir, 'observer.sock'), 'lan#one');
    await client.attach('outsider', join(vmDir, 'outsider.sock'), 'lan#two');
    await client.attach('neighbour', join(vmDir, 'neighbour.sock'), 'lan#two');

    // QEMU drops what a NIC sends while no client is connected, so announce until one arrives.
    const announced = async () => {
      await qmpA.execute('announce-self', { initial: 50, max: 50, rounds: 1, step: 50 });
      return observer.frames.filter((body) => isAnnouncement(body, macA)).length;
    };
    await expect.poll(announced, { timeout: 15_000, interval: 300 }).toBeGreaterThan(0);
    // What the switch wrote reached the other machine's NIC: QEMU reads the switch's framing.
    await expect
      .poll(() => pcapFrames(join(vmDir, 'b.pcap')).some((body) => isAnnouncement(body, macA)))
      .toBe(true);
    neighbour.send(frame(BROADCAST, mac(71), 'two only'));
    await expect.poll(() => outsider.texts).toEqual(['two only']);
    expect(outsider.frames).toHaveLength(1);

    // QEMU accepts the restarted switch once it has seen the killed one's connection close.
    // Machine a never had a frame for its guest, so QEMU still reads its socket and sees that;
    // b holds one its firmware never takes, and QEMU stops reading until the guest does.
    const pid = Number.parseInt(readFileSync(join(stateDir, 'switch.pid'), 'utf8'), 10);
    const before = observer.frames.filter((body) => isAnnouncement(body, macA)).length;
    process.kill(pid, 'SIGKILL');
    await expect.poll(() => alive(pid)).toBe(false);
    client = await ensureSwitch(stateDir);
    clients.push(client);
    await expect.poll(announced, { timeout: 15_000, interval: 300 }).toBeGreaterThan(before);
    qmpA.close();
  }, 60_000);
});
