import { once } from 'node:events';
import Fastify, { type FastifyInstance } from 'fastify';
import fastifyWebsocket from '@fastify/websocket';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { createMemoryCache, type Cache } from '../core/cache';
import type { DriverEvent, HypervisorDriver, Machine } from '../hypervisor';
import { createSimConsoles, MACHINE_CHECK_MS } from '../hypervisor/sim/console/consoles';
import { applyInput, newTerminal } from '../hypervisor/sim/console/terminal';
import { renderScreen, SCREEN_HEIGHT, SCREEN_WIDTH } from '../hypervisor/sim/console/screen';
import {
  CLOSE_POLICY_VIOLATION,
  consoleRoutes,
  INVALID_TICKET,
  TOO_MUCH_EARLY,
  type ConsoleViewers,
} from './routes';
import { createConsoleTickets, type ConsoleSubject, type ConsoleTicketStore } from './tickets';
import {
  createConsoleSlots,
  DEFAULT_CONSOLE_LIMITS,
  HANDSHAKE_TIMEOUT_REASON,
  machineCapReason,
  serverCapReason,
  userCapReason,
  type ConsoleLimits,
  type ConsoleSlots,
} from './limits';
import type { Actor } from '../core/actor';
import { KEY } from '../hypervisor/sim/console/keys';
import { MACHINE_OFF_REASON } from '../hypervisor/sim/console/rfb';
import { createManualClock, type ManualClock } from '../../tests/server/manualClock';

// The console endpoint over a real port with the `ws` client, as noVNC uses it: the ticket from
// `issue`, bound to a subject, the `binary` subprotocol, the RFB 3.8 handshake and Raw updates.
// The hypervisor is a fake at the driver boundary (a map of machines and a way to announce
// changes) whose consoles are the sim's drawn ones; their machine checks run on a manual clock.
// Who may open which machine is a fake at the viewers boundary (a set of subject ids).

const VM_ID = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';

function machine(over: Partial<Machine> = {}): Machine {
  return {
    id: VM_ID,
    name: 'kali#5f0c1d',
    host: 'sim',
    path: '',
    reference: '',
    diskPath: '',
    stats: '',
    status: 'deployed',
    tags: null,
    state: 'running',
    question: null,
    task: null,
    isTemplate: false,
    nics: [],
    ...over,
  };
}

function fakeDriver(machines: Map<string, Machine>, clock: ManualClock) {
  const listeners = new Set<(event: DriverEvent) => void>();
  const unused = () => Promise.reject(new Error('not used by the console'));
  const load = async (id: string) => machines.get(id) ?? null;
  const subscribe = (listener: (event: DriverEvent) => void) => {
    listeners.add(listener);
    return () => listeners.delete(listener);
  };
  const consoles = createSimConsoles({ load, subscribe, clock });
  /** How many consoles the driver was asked to open. */
  const opened = { count: 0 };
  const driver: HypervisorDriver = {
    capabilities: {
      kind: 'sim',
      operations: ['start', 'stop'],
      liveIsoChange: false,
      liveNicChange: false,
      guestChange: false,
      serverConsoles: true,
      simulated: true,
      acceleration: 'simulated',
    },
    load,
    start: unused,
    stop: unused,
    save: unused,
    revert: unused,
    delete: unused,
    changeState: unused,
    changeConfiguration: unused,
    answer: unused,
    deploy: unused,
    deployBatch: unused,
    refresh: unused,
    find: unused,
    machinesOf: unused,
    retag: unused,
    startAll: unused,
    stopAll: unused,
    deleteAll: unused,
    availability: unused,
    createDisks: unused,
    verifyDisks: unused,
    deleteDisks: unused,
    display: unused,
    openConsole: (id, viewer) => {
      opened.count += 1;
      return consoles.open(id, viewer);
    },
    isoOptions: unused,
    netOptions: unused,
    ready: unused,
    status: unused,
    subscribe,
    close: async () => consoles.close(),
  };
  const announce = (event: DriverEvent) => listeners.forEach((l) => l(event));
  return { driver, announce, listeners, opened };
}

/** An RFB viewer over `ws` that reads exact byte counts and keeps its own copy of the screen. */
class Viewer {
  private buffered = Buffer.alloc(0);
  private wake: (() => void) | null = null;
  readonly closed: Promise<{ code: number; reason: string }>;
  readonly pixels = new Uint32Array(SCREEN_WIDTH * SCREEN_HEIGHT);
  /** How many bytes arrived before the socket closed (refused viewers get none). */
  received = 0;

  constructor(readonly socket: WebSocket) {
    socket.on('message', (data: Buffer) => {
      this.received += data.length;
      this.buffered = Buffer.concat([this.buffered, data]);
      this.wake?.();
    });
    this.closed = new Promise((resolve) =>
      socket.on('close', (code, reason) => {
        resolve({ code, reason: reason.toString() });
        this.wake?.();
      }),
    );
  }

  async read(n: number): Promise<Buffer> {
    while (this.buffered.length < n) {
      if (this.socket.readyState >= WebSocket.CLOSING) throw new Error('closed while reading');
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
    const out = this.buffered.subarray(0, n);
    this.buffered = this.buffered.subarray(n);
    return out;
  }

  send(bytes: number[] | Buffer) {
    this.socket.send(Buffer.from(bytes));
  }

  /**
   * A ping and its pong: the server answers it after what it had to send before, so whatever
   * the messages sent so far made it send has arrived once this resolves (or the socket closed).
   */
  async roundTrip() {
    this.socket.ping();
    await Promise.race([once(this.socket, 'pong'), this.closed]);
  }

  /** Version, then the list of security types offered: the reason when it is empty. */
  async greet(): Promise<string | null> {
    expect((await this.read(12)).toString('latin1')).toBe('RFB 003.008\n');
    this.send(Buffer.from('RFB 003.008\n', 'latin1'));
    const count = (await this.read(1))[0]!;
    if (count > 0) return null;
    const length = (await this.read(4)).readUInt32BE(0);
    return (await this.read(length)).toString('utf8');
  }

  /** Version, security None, ClientInit; returns the ServerInit name. */
  async handshake(): Promise<string> {
    expect((await this.read(12)).toString('latin1')).toBe('RFB 003.008\n');
    this.send(Buffer.from('RFB 003.008\n', 'latin1'));
    expect([...(await this.read(2))]).toEqual([1, 1]);
    this.send([1]);
    expect((await this.read(4)).readUInt32BE(0)).toBe(0);
    this.send([1]);
    const init = await this.read(24);
    expect([init.readUInt16BE(0), init.readUInt16BE(2)]).toEqual([SCREEN_WIDTH, SCREEN_HEIGHT]);
    expect(init.readUInt8(4)).toBe(32);
    return (await this.read(init.readUInt32BE(20))).toString('utf8');
  }

  request(incremental: boolean) {
    const b = Buffer.alloc(10);
    b.writeUInt8(3, 0);
    b.writeUInt8(incremental ? 1 : 0, 1);
    b.writeUInt16BE(SCREEN_WIDTH, 6);
    b.writeUInt16BE(SCREEN_HEIGHT, 8);
    this.send(b);
  }

  key(keysym: number, down = true) {
    const b = Buffer.alloc(8);
    b.writeUInt8(4, 0);
    b.writeUInt8(down ? 1 : 0, 1);
    b.writeUInt32BE(keysym, 4);
    this.send(b);
  }

  type(text: string) {
    for (const char of text) {
      this.key(char.charCodeAt(0), true);
      this.key(char.charCodeAt(0), false);
    }
  }

  /** Reads one FramebufferUpdate into the copy of the screen; returns its rectangles. */
  async update() {
    const head = await this.read(4);
    expect(head.readUInt8(0)).toBe(0);
    const rects = [];
    for (let i = 0; i < head.readUInt16BE(2); i++) {
      const r = await this.read(12);
      const rect = {
        x: r.readUInt16BE(0),
        y: r.readUInt16BE(2),
        width: r.readUInt16BE(4),
        height: r.readUInt16BE(6),
      };
      expect(r.readInt32BE(8)).toBe(0);
      const data = await this.read(rect.width * rect.height * 4);
      for (let y = 0; y < rect.height; y++)
        for (let x = 0; x < rect.width; x++)
          this.pixels[(rect.y + y) * SCREEN_WIDTH + rect.x + x] = data.readUInt32LE(
            (y * rect.width + x) * 4,
          );
      rects.push(rect);
    }
    return rects;
  }
}

/** How many pixels differ (deep equality over 384,000 pixels is slow and prints poorly). */
const differing = (a: Uint32Array, b: Uint32Array) =>
  a.reduce((n, p, i) => n + (p === b[i] ? 0 : 1), 0);

const typed = (text: string) =>
  [...text].reduce((t, char) => applyInput(t, { kind: 'char', char }), newTerminal('kali'));

const PLAYER: ConsoleSubject = { id: 'player-1', name: 'Player One' };
const OBSERVER: ConsoleSubject = { id: 'observer-1', name: 'Ada' };

/** Viewers by subject id: who may open the machines, and whose cookie the upgrade request carries. */
function fakeViewers(allowed: Set<string>, machines: Map<string, Machine>): ConsoleViewers {
  const actor = (id: string) => ({ id }) as Actor;
  return {
    viewerOf: async (request) => {
      const cookie = request.headers['x-test-viewer'];
      return typeof cookie === 'string' ? actor(cookie) : null;
    },
    actorOf: async (subject) => actor(subject.id),
    // Subjects whose id starts with `observer` only watch.
    mayOpen: async (viewer, machineId) =>
      !machines.has(machineId) || !allowed.has(viewer.id)
        ? null
        : viewer.id.startsWith('observer')
          ? { role: 'observer', mayControl: false }
          : { role: 'player', mayControl: true },
  };
}

describe('console WebSocket (GET /api/console/vnc/:id)', () => {
  let app: FastifyInstance | undefined;
  let cache: Cache;
  let tickets: ConsoleTicketStore;
  let machines: Map<string, Machine>;
  let fake: ReturnType<typeof fakeDriver>;
  let clock: ManualClock;
  let base: string;
  let allowed: Set<string>;
  let slots: ConsoleSlots;
  const viewers: Viewer[] = [];
  /** What `sessions` was told, in order. */
  let sessionLog: string[];

  async function start(limits: ConsoleLimits = DEFAULT_CONSOLE_LIMITS) {
    if (app) await app.close();
    slots = createConsoleSlots(limits);
    app = Fastify();
    await app.register(fastifyWebsocket);
    await app.register(consoleRoutes, {
      driver: fake.driver,
      tickets,
      viewers: fakeViewers(allowed, machines),
      limits,
      slots,
      sessions: {
        opened: (s) =>
          sessionLog.push(
            `opened ${s.subject.id} ${s.machineId} ${s.machineName}${s.viewOnly ? ' view-only' : ''}`,
          ),
        closed: (s) => sessionLog.push(`closed ${s.subject.id} ${s.machineId} ${s.machineName}`),
      },
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    if (!address || typeof address === 'string') throw new Error('no port');
    base = `ws://127.0.0.1:${address.port}`;
  }

  beforeEach(async () => {
    machines = new Map([[VM_ID, machine()]]);
    clock = createManualClock();
    fake = fakeDriver(machines, clock);
    cache = createMemoryCache();
    tickets = createConsoleTickets(cache);
    allowed = new Set([PLAYER.id, 'player-2', 'player-3', OBSERVER.id]);
    sessionLog = [];
    await start();
  });

  /** A ticket for the machine, handed to `subject` as GET /api/vm-console/{id} hands it. */
  async function ticketFor(vmId = VM_ID, subject: ConsoleSubject = PLAYER) {
    const issued = await tickets.issue(vmId);
    await tickets.bind(issued.ticket, subject);
    return issued;
  }

  afterEach(async () => {
    for (const v of viewers.splice(0)) v.socket.terminate();
    await app?.close();
    app = undefined;
    await fake.driver.close();
    await cache.close();
  });

  async function open(path: string, headers: Record<string, string> = {}): Promise<Viewer> {
    const socket = new WebSocket(`${base}${path}`, ['binary'], { headers });
    const viewer = new Viewer(socket);
    viewers.push(viewer);
    await once(socket, 'open');
    return viewer;
  }

  it('issues single-use 32-hex tickets bound to the machine and their subject', async () => {
    const { ticket, url } = await ticketFor();
    expect(ticket).toMatch(/^[0-9a-f]{32}$/);
    expect(url).toBe(`/api/console/vnc/${VM_ID}?ticket=${ticket}`);
    expect(await tickets.take(ticket, 'another')).toBeNull();
    const again = await ticketFor(VM_ID, { ...PLAYER, gamespaceId: 'gs-1' });
    expect(await tickets.take(again.ticket, VM_ID)).toEqual({ ...PLAYER, gamespaceId: 'gs-1' });
    expect(await tickets.take(again.ticket, VM_ID)).toBeNull();
    // Bound once: a second bind does not move a ticket to someone else.
    const third = await ticketFor();
    await tickets.bind(third.ticket, { id: 'intruder', name: 'I' });
    expect(await tickets.take(third.ticket, VM_ID)).toEqual(PLAYER);
    // A ticket nobody was handed opens nothing.
    const unbound = await tickets.issue(VM_ID);
    expect(await tickets.take(unbound.ticket, VM_ID)).toBeNull();
  });

  it('tells of a console once it opens for its viewer and when that socket closes', async () => {
    const viewer = await open((await ticketFor()).url);
    expect(await viewer.greet()).toBeNull();
    expect([...(await viewer.read(1))]).toEqual([1]);
    // Greeted but not yet bridged to the machine: nothing opened.
    expect(sessionLog).toEqual([]);
    viewer.send([1]);
    expect((await viewer.read(4)).readUInt32BE(0)).toBe(0);
    viewer.send([1]);
    await viewer.read(24);
    expect(sessionLog).toEqual([`opened ${PLAYER.id} ${VM_ID} kali#5f0c1d`]);
    viewer.socket.close();
    await viewer.closed;
    await vi.waitFor(() =>
      expect(sessionLog).toEqual([
        `opened ${PLAYER.id} ${VM_ID} kali#5f0c1d`,
        `closed ${PLAYER.id} ${VM_ID} kali#5f0c1d`,
      ]),
    );
  });

  it('tells nothing of a viewer refused or gone before its console opened', async () => {
    const refused = await open(`/api/console/vnc/${VM_ID}?ticket=${'0'.repeat(32)}`);
    await refused.closed;
    const early = await open((await ticketFor()).url);
    await early.greet();
    early.socket.close();
    await early.closed;
    // A viewer after them opens and closes: by then the others' closes have been handled.
    const after = await open((await ticketFor()).url);
    await after.handshake();
    after.socket.close();
    await after.closed;
    await vi.waitFor(() => expect(sessionLog).toHaveLength(2));
    expect(sessionLog.map((line) => line.split(' ')[0])).toEqual(['opened', 'closed']);
  });

  it('accepts the binary subprotocol and completes the RFB 3.8 handshake with the name', async () => {
    const viewer = await open((await ticketFor()).url);
    expect(viewer.socket.protocol).toBe('binary');
    expect(await viewer.handshake()).toBe('kali');
  });

  it('sends the whole screen for a full request, then what typing changed', async () => {
    const viewer = await open((await ticketFor()).url);
    await viewer.handshake();
    viewer.request(false);
    await viewer.update();
    const fresh = renderScreen({
      name: 'kali',
      state: 'running',
      running: true,
      terminal: newTerminal('kali'),
    });
    expect(differing(viewer.pixels, fresh.pixels)).toBe(0);

    viewer.type('ls');
    viewer.request(true);
    let rects = await viewer.update();
    // Keys may arrive as separate changes; keep asking until the screen shows both.
    const expected = renderScreen({
      name: 'kali',
      state: 'running',
      running: true,
      terminal: typed('ls'),
    });
    while (differing(viewer.pixels, expected.pixels) > 0) {
      viewer.request(true);
      rects = await viewer.update();
    }
    // Incremental: only the prompt row changed, not the screen.
    for (const r of rects)
      expect(r.width * r.height).toBeLessThan((SCREEN_WIDTH * SCREEN_HEIGHT) / 10);
  });

  it('holds an incremental request until something changes', async () => {
    const viewer = await open((await ticketFor()).url);
    await viewer.handshake();
    viewer.request(false);
    await viewer.update();
    viewer.request(true);
    await viewer.roundTrip();
    const before = viewer.received;
    expect(before).toBeGreaterThan(0);
    viewer.type('x');
    await viewer.update();
    expect(viewer.received).toBeGreaterThan(before);
  });

  it('prints the Ctrl-Alt-Del line', async () => {
    const viewer = await open((await ticketFor()).url);
    await viewer.handshake();
    viewer.request(false);
    await viewer.update();
    viewer.key(KEY.controlLeft);
    viewer.key(KEY.altLeft);
    viewer.key(KEY.delete);
    viewer.request(true);
    await viewer.update();
    const expected = renderScreen({
      name: 'kali',
      state: 'running',
      running: true,
      terminal: applyInput(newTerminal('kali'), { kind: 'ctrlAltDel' }),
    });
    expect(differing(viewer.pixels, expected.pixels)).toBe(0);
  });

  it.each([
    ['no ticket', () => `/api/console/vnc/${VM_ID}`],
    ['an unknown ticket', () => `/api/console/vnc/${VM_ID}?ticket=${'0'.repeat(32)}`],
  ])('closes 1008 without an RFB byte for %s', async (_label, path) => {
    const viewer = await open(path());
    expect((await viewer.closed).code).toBe(CLOSE_POLICY_VIOLATION);
    expect(viewer.received).toBe(0);
  });

  it('closes 1008 for a used ticket, another machine’s ticket, and a stopped machine', async () => {
    const { url } = await ticketFor();
    const first = await open(url);
    await first.handshake();
    const reused = await open(url);
    expect((await reused.closed).code).toBe(CLOSE_POLICY_VIOLATION);

    const other = await ticketFor('someothermachine');
    const wrong = await open(`/api/console/vnc/${VM_ID}?ticket=${other.ticket}`);
    expect((await wrong.closed).code).toBe(CLOSE_POLICY_VIOLATION);

    machines.set(VM_ID, machine({ state: 'off' }));
    const off = await open((await ticketFor()).url);
    const closed = await off.closed;
    expect(closed).toEqual({ code: CLOSE_POLICY_VIOLATION, reason: MACHINE_OFF_REASON });
    expect(off.received).toBe(0);
  });

  it('draws the stop and closes when the driver announces the machine off', async () => {
    const viewer = await open((await ticketFor()).url);
    await viewer.handshake();
    viewer.request(false);
    await viewer.update();
    viewer.request(true);
    fake.announce({ type: 'updated', machine: machine({ state: 'off' }) });
    await viewer.update();
    const closed = await viewer.closed;
    expect(closed).toEqual({ code: 1000, reason: MACHINE_OFF_REASON });
    const red = renderScreen({
      name: 'kali',
      state: 'stopped',
      running: false,
      terminal: {
        ...newTerminal('kali'),
        lines: [...newTerminal('kali').lines, { prompt: '', text: '[machine stopped]' }],
      },
    });
    expect(differing(viewer.pixels, red.pixels)).toBe(0);
  });

  it('notices a machine stopped through the API, which the driver does not announce', async () => {
    const viewer = await open((await ticketFor()).url);
    await viewer.handshake();
    machines.set(VM_ID, machine({ state: 'off' }));
    clock.advance(MACHINE_CHECK_MS - 1);
    await viewer.roundTrip();
    expect(viewer.socket.readyState).toBe(WebSocket.OPEN);
    clock.advance(1);
    const closed = await viewer.closed;
    expect(closed.code).toBe(1000);
  });

  it('stops following the machine when its last viewer leaves', async () => {
    const viewer = await open((await ticketFor()).url);
    await viewer.handshake();
    expect(fake.listeners.size).toBe(1);
    viewer.socket.close();
    await viewer.closed;
    await vi.waitFor(() => expect(fake.listeners.size).toBe(0));
    expect(clock.pending()).toBe(0);
  });

  describe('a ticket opens the console only as the subject it was handed to', () => {
    it('refuses a ticket nobody was handed, before any RFB byte', async () => {
      const viewer = await open((await tickets.issue(VM_ID)).url);
      expect(await viewer.closed).toEqual({ code: CLOSE_POLICY_VIOLATION, reason: INVALID_TICKET });
      expect(viewer.received).toBe(0);
    });

    it('refuses a ticket, used without a cookie, whose subject lost the right to the machine', async () => {
      const { url } = await ticketFor();
      allowed.delete(PLAYER.id);
      const viewer = await open(url);
      expect(await viewer.closed).toEqual({ code: CLOSE_POLICY_VIOLATION, reason: INVALID_TICKET });
      expect(fake.opened.count).toBe(0);
    });

    it("refuses a ticket brought by someone else's cookie, and opens it for its own", async () => {
      const stolen = await open((await ticketFor()).url, { 'x-test-viewer': 'player-2' });
      expect((await stolen.closed).code).toBe(CLOSE_POLICY_VIOLATION);
      const own = await open((await ticketFor()).url, { 'x-test-viewer': PLAYER.id });
      expect(await own.handshake()).toBe('kali');
    });
  });

  describe('view only', () => {
    /** Reads updates until the screen shows one of `terminals`; returns which. */
    async function screenOf(viewer: Viewer, terminals: Record<string, ReturnType<typeof typed>>) {
      const screens = Object.entries(terminals).map(([label, terminal]) => ({
        label,
        pixels: renderScreen({ name: 'kali', state: 'running', running: true, terminal }).pixels,
      }));
      for (;;) {
        const shown = screens.find((x) => differing(viewer.pixels, x.pixels) === 0);
        if (shown) return shown.label;
        viewer.request(true);
        await viewer.update();
      }
    }

    function pointer(viewer: Viewer) {
      viewer.send([5, 1, 0, 10, 0, 10]);
      viewer.send([5, 0, 0, 10, 0, 10]);
    }

    it("drops an observer's keys, pointer and clipboard, and still draws the screen for them", async () => {
      const observer = await open((await ticketFor(VM_ID, OBSERVER)).url);
      await observer.handshake();
      observer.request(false);
      await observer.update();
      observer.type('ls');
      observer.key(KEY.controlLeft);
      observer.key(KEY.altLeft);
      observer.key(KEY.delete);
      pointer(observer);
      observer.send([6, 0, 0, 0, 0, 0, 0, 3, 0x6c, 0x73, 0x0d]);
      // QEMU's extended key event, split over two frames.
      observer.send([255, 0, 0, 1, 0, 0]);
      observer.send([0, 0x78, 0, 0, 0, 0x2d]);
      await observer.roundTrip();
      expect(observer.socket.readyState).toBe(WebSocket.OPEN);
      expect(sessionLog).toContain(`opened ${OBSERVER.id} ${VM_ID} kali#5f0c1d view-only`);

      const player = await open((await ticketFor()).url);
      await player.handshake();
      player.request(false);
      await player.update();
      player.type('x');
      expect(await screenOf(player, { x: typed('x'), leaked: typed('lsx') })).toBe('x');
      // The observer sees what the player typed.
      expect(await screenOf(observer, { x: typed('x') })).toBe('x');
    });

    it('keeps a ticket handed view-only so, though its holder may drive the machine', async () => {
      const viewer = await open((await ticketFor(VM_ID, { ...PLAYER, viewOnly: true })).url);
      await viewer.handshake();
      viewer.request(false);
      await viewer.update();
      viewer.type('ls');
      await viewer.roundTrip();
      const player = await open((await ticketFor(VM_ID, { id: 'player-2', name: 'Two' })).url);
      await player.handshake();
      player.request(false);
      await player.update();
      player.type('x');
      expect(await screenOf(player, { x: typed('x'), leaked: typed('lsx') })).toBe('x');
    });

    it('closes a view-only viewer that sends a message of unknown length', async () => {
      const observer = await open((await ticketFor(VM_ID, OBSERVER)).url);
      await observer.handshake();
      observer.send([7, 0, 0, 0]);
      expect((await observer.closed).code).toBe(1002);
    });
  });

  describe('handshake', () => {
    it('greets a 3.3 viewer by naming the security type', async () => {
      const viewer = await open((await ticketFor()).url);
      expect((await viewer.read(12)).toString('latin1')).toBe('RFB 003.008\n');
      viewer.send(Buffer.from('RFB 003.003\n', 'latin1'));
      expect((await viewer.read(4)).readUInt32BE(0)).toBe(1);
      viewer.send([1]);
      expect((await viewer.read(24)).readUInt16BE(0)).toBe(SCREEN_WIDTH);
    });

    it('closes with a protocol error on a viewer that is not RFB or picks another security type', async () => {
      const http = await open((await ticketFor()).url);
      await http.read(12);
      http.send(Buffer.from('GET / HTTP/1.1\n', 'latin1'));
      expect((await http.closed).code).toBe(1002);

      const picky = await open((await ticketFor()).url);
      await picky.read(12);
      picky.send(Buffer.from('RFB 003.008\n', 'latin1'));
      await picky.read(2);
      picky.send([2]);
      expect((await picky.closed).code).toBe(1002);
      expect(fake.opened.count).toBe(0);
    });

    it('opens nothing on the machine until the viewer has chosen its security type', async () => {
      const viewer = await open((await ticketFor()).url);
      await viewer.read(12);
      viewer.send(Buffer.from('RFB 003.008\n', 'latin1'));
      await viewer.read(2);
      await viewer.roundTrip();
      expect(fake.opened.count).toBe(0);
      expect(slots.open).toBe(1);
      viewer.send([1]);
      await viewer.read(4);
      viewer.send([1]);
      await viewer.read(24);
      expect(fake.opened.count).toBe(1);
    });

    it('closes a viewer that does not finish the handshake in time, and frees its place', async () => {
      await start({ ...DEFAULT_CONSOLE_LIMITS, handshakeTimeoutMs: 150 });
      const silent = await open((await ticketFor()).url);
      expect(await silent.closed).toEqual({
        code: CLOSE_POLICY_VIOLATION,
        reason: HANDSHAKE_TIMEOUT_REASON,
      });
      expect(silent.received).toBe(12);
      await vi.waitFor(() => expect(slots.open).toBe(0));
      expect(fake.opened.count).toBe(0);
    });

    it('closes a viewer that sends more than a handshake before the console opened', async () => {
      const viewer = await open((await ticketFor()).url);
      viewer.send(Buffer.alloc(64 * 1024));
      expect(await viewer.closed).toEqual({ code: 1002, reason: TOO_MUCH_EARLY });
      expect(fake.opened.count).toBe(0);
    });
  });

  describe('caps', () => {
    const small = { ...DEFAULT_CONSOLE_LIMITS, perUser: 2, perMachine: 3, perServer: 4 };

    it('tells a viewer over its own cap why, in the handshake, while others still get in', async () => {
      await start(small);
      const mine = [await open((await ticketFor()).url), await open((await ticketFor()).url)];
      for (const viewer of mine) await viewer.handshake();
      const third = await open((await ticketFor()).url);
      expect(await third.greet()).toBe(userCapReason(2));
      expect(await third.closed).toEqual({
        code: CLOSE_POLICY_VIOLATION,
        reason: userCapReason(2),
      });
      const other = await open((await ticketFor(VM_ID, { id: 'player-2', name: 'Two' })).url);
      expect(await other.handshake()).toBe('kali');

      // A closed console frees its place.
      mine[0]!.socket.close();
      await vi.waitFor(() => expect(slots.open).toBe(2));
      expect(await (await open((await ticketFor()).url)).handshake()).toBe('kali');
    });

    it("caps a machine's consoles, then the server's", async () => {
      await start(small);
      const subject = (n: number) => ({ id: `player-${n}`, name: `P${n}` });
      for (const n of [1, 2, 3]) {
        expect(await (await open((await ticketFor(VM_ID, subject(n))).url)).handshake()).toBe(
          'kali',
        );
      }
      const fourth = await open((await ticketFor(VM_ID, subject(1))).url);
      expect(await fourth.greet()).toBe(machineCapReason(3));

      // Another machine still opens, up to the server's cap.
      const SECOND = 'f0e1d2c3b4a5968778695a4b3c2d1e0f';
      machines.set(SECOND, machine({ id: SECOND, name: 'web#5f0c1d' }));
      const web = await open((await ticketFor(SECOND, subject(2))).url);
      expect(await web.handshake()).toBe('web');
      const over = await open((await ticketFor(SECOND, subject(3))).url);
      expect(await over.greet()).toBe(serverCapReason(4));
      expect(slots.open).toBe(4);
    });
  });
});
