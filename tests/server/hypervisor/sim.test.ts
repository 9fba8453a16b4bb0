import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { newId } from '../../../server/core/ids';
import type {
  ConsoleTickets,
  ConsoleViewer,
  DiskSpec,
  DriverEvent,
  MachineSpec,
} from '../../../server/hypervisor';
import { fwCfgPath, GUEST_SETTINGS_FILE } from '../../../server/hypervisor/guestFiles';
import { createMachineDisplay } from '../../../server/hypervisor/sim/console/display';
import { machineFiles } from '../../../server/hypervisor/sim/console/files';
import type { ConsoleInput } from '../../../server/hypervisor/sim/console/keys';
import { startRfbSession } from '../../../server/hypervisor/sim/console/rfb';
import { SCREEN_HEIGHT, SCREEN_WIDTH } from '../../../server/hypervisor/sim/console/screen';
import { applyInputs, newTerminal } from '../../../server/hypervisor/sim/console/terminal';
import { createSimDriver } from '../../../server/hypervisor/sim/simDriver';
import { TASK_MS } from '../../../server/hypervisor/sim/tasks';
import { openStore, type Store } from '../../../server/store/db';
import { createSimMachineStore } from '../../../server/store/simMachineStore';
import { createTestDatabase, testEngines, type TestDatabase } from '../databases';
import { createManualClock, type ManualClock } from '../manualClock';
import { driverContract, nic } from './contract';

// The sim driver: the contract on every database engine, then what only the sim promises:
// progress from the clock, tasks that survive a restart, one announcement per task when several
// processes share the database, and tasks that end inside the call at speed 0. The contract runs
// on the real clock; the sim-only tests move a manual one.

// Fast enough for the suite, slow enough that every task is really pending for a while.
const CONTRACT_SPEED = 50;

/** Longer than any task: moving the clock on by it ends every task that is running. */
const HOUR = 3_600_000;

/** A spec of a tag; its disk is blank (present at once) unless disks are given. */
function spec(name: string, tag: string, fields: Partial<MachineSpec> = {}): MachineSpec {
  return {
    templateId: newId(),
    name,
    isolationTag: tag,
    cpu: { sockets: 1, coresPerSocket: 2 },
    memoryMiB: 4096,
    guestOs: null,
    disks: [disk(`[ds] ${tag}/blank-${name}.vmdk`, null)],
    nics: [{ ...nic('lan'), adapter: 'e1000' }],
    guestSettings: [],
    iso: null,
    bootDelaySeconds: 0,
    autoStart: true,
    hostAffinity: false,
    useUplink: false,
    baseImage: null,
    baseImageSource: null,
    ...fields,
  };
}

function disk(path: string, source: string | null, index = 0): DiskSpec {
  return { index, path, source, controller: 'lsilogic', sizeGiB: 40 };
}

/** Console tickets as server/console issues them; the sim only passes them through. */
const tickets: ConsoleTickets = {
  issue: async (vmId) => ({ ticket: 'secret', url: `/api/console/vnc/${vmId}?ticket=t` }),
};

/** Console input for typed text, a line break as Enter. */
const consoleInputs = (text: string): ConsoleInput[] =>
  [...text].map((char) => (char === '\n' ? { kind: 'enter' } : { kind: 'char', char }));

/**
 * The screen a console viewer is sent (a full FramebufferUpdate) once `text` was pasted into the
 * session `open` gives it, from the viewer's ClientInit on.
 */
async function screenAfterTyping(
  text: string,
  open: (viewer: ConsoleViewer) => Promise<{ receive(bytes: Uint8Array): void; end(): void }>,
): Promise<Buffer> {
  const sent: Buffer[] = [];
  const session = await open({ send: (b) => sent.push(Buffer.from(b)), close: () => undefined });
  const pasted = Buffer.from(text, 'latin1');
  const cutText = Buffer.alloc(8);
  cutText.writeUInt8(6, 0);
  cutText.writeInt32BE(pasted.length, 4);
  const fullRequest = Buffer.alloc(10);
  fullRequest.writeUInt8(3, 0);
  fullRequest.writeUInt16BE(SCREEN_WIDTH, 6);
  fullRequest.writeUInt16BE(SCREEN_HEIGHT, 8);
  session.receive(Buffer.concat([Buffer.from([1]), cutText, pasted, fullRequest]));
  session.end();
  return sent.at(-1) ?? Buffer.alloc(0);
}

describe.each(testEngines())('sim driver on %s', (engine) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'topoplay-sim-'));

  driverContract(`sim on ${engine}`, async () => {
    const database = await createTestDatabase(engine);
    const store = await openStore({ url: database.url, schema: database.schema });
    const driver = createSimDriver({
      store: createSimMachineStore(store.db),
      dataDir,
      speed: CONTRACT_SPEED,
      console: tickets,
    });
    return {
      driver,
      consoles: true,
      specFor: spec,
      copiedSpecFor: (name, tag) =>
        spec(name, tag, { disks: [disk(`[ds] ${tag}/${name}_0.vmdk`, `[ds] stock/${name}.vmdk`)] }),
      stockSpecFor: (name, tag) =>
        spec(name, tag, { disks: [disk(`[ds] stock/${name}_0.vmdk`, `[ds] base/${name}.vmdk`)] }),
      // Ten seconds of disk copy at the contract's speed is well inside this.
      taskDeadlineMs: 10_000,
      async close() {
        await driver.close();
        await store.close();
        await database.cleanup();
      },
    };
  });

  describe('sim only', () => {
    let database: TestDatabase;
    let store: Store;
    let clock: ManualClock;
    const drivers: Array<{ close(): Promise<void> }> = [];

    /** A driver at real speed on the test's clock (another process, when there are several). */
    const make = (speed = 1) => {
      const driver = createSimDriver({
        store: createSimMachineStore(store.db),
        dataDir,
        speed,
        clock,
      });
      drivers.push(driver);
      return driver;
    };

    /** Events collected from a driver. */
    const record = (driver: ReturnType<typeof make>) => {
      const events: DriverEvent[] = [];
      driver.subscribe((e) => events.push(e));
      return events;
    };

    beforeAll(async () => {
      database = await createTestDatabase(engine);
      store = await openStore({ url: database.url, schema: database.schema });
    });
    beforeEach(() => {
      clock = createManualClock();
    });
    afterEach(async () => {
      // Tasks a test leaves running end here, where the drivers that know them are still open;
      // the next test's drivers would otherwise find them on start-up and announce them.
      clock.advance(HOUR);
      for (const d of drivers.splice(0)) await d.close();
    });
    afterAll(async () => {
      await store?.close();
      await database?.cleanup();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('reports a task whose progress grows with time until it ends', async () => {
      const driver = make();
      const vm = await driver.deploy(spec('web', newId()), false);
      expect(vm).toMatchObject({ state: 'off', task: { name: 'deploying', progress: 0 } });
      clock.advance(TASK_MS.deploy / 10);
      expect((await driver.load(vm.id))?.task).toMatchObject({ name: 'deploying', progress: 10 });
      clock.advance(TASK_MS.deploy - TASK_MS.deploy / 10 - 1);
      expect((await driver.load(vm.id))?.task).toMatchObject({ name: 'deploying', progress: 99 });
      clock.advance(1);
      expect(await driver.load(vm.id)).toMatchObject({ state: 'running', task: null });
    });

    it("says a tag's machines are usable once their deploys have ended, running if they start", async () => {
      const driver = make();
      const tag = newId();
      const specs = [spec('a', ''), spec('b', '', { autoStart: false })];
      await driver.deployBatch(
        { isolationTag: tag, hostAffinity: false, privileged: false, specs },
        true,
      );
      let usable = false;
      const waiting = driver.untilUsable!(tag).then(() => (usable = true));
      // The deploys' timers and the wait's own.
      await vi.waitFor(() => expect(clock.pending()).toBe(3));
      clock.advance(TASK_MS.deploy - 1);
      expect(usable).toBe(false);
      clock.advance(1);
      await waiting;
      expect((await driver.machinesOf(tag)).map((vm) => [vm.name, vm.state, vm.task])).toEqual([
        [`a#${tag}`, 'running', null],
        [`b#${tag}`, 'off', null],
      ]);
    });

    it('says machines started together are usable once they run, however late their starts', async () => {
      // The starts' writes are held: the wait begins between the deploys' end and the starts.
      const machines = createSimMachineStore(store.db);
      let release: () => void = () => undefined;
      const held = new Promise<void>((resolve) => (release = resolve));
      let startedUp: Promise<unknown> = Promise.resolve();
      const driver = createSimDriver({
        store: {
          ...machines,
          withTask: () => (startedUp = machines.withTask()),
          update: (id, patch) => held.then(() => machines.update(id, patch)),
        },
        dataDir,
        speed: 1,
        clock,
      });
      drivers.push(driver);
      // Its look for pending tasks on start-up is over: one that came late could find the deploys
      // before their starts superseded them, and time them again.
      await startedUp;
      const tag = newId();
      const specs = [spec('a', ''), spec('b', '')];
      try {
        await driver.deployBatch(
          { isolationTag: tag, hostAffinity: true, privileged: false, specs },
          true,
        );
        // The starts superseded the deploys, which ended off; their own writes are held.
        await vi.waitFor(async () =>
          expect((await machines.ofTag(tag)).map((r) => [r.state, r.taskId])).toEqual([
            ['off', ''],
            ['off', ''],
          ]),
        );
        // A read that raced a start may have timed its superseded deploy again, to no effect.
        const timed = clock.pending();
        let usable = false;
        const waiting = driver.untilUsable!(tag).then(() => (usable = true));
        release();
        // The starts' timers and the wait's own.
        await vi.waitFor(() => expect(clock.pending()).toBe(timed + 3));
        clock.advance(TASK_MS.start - 1);
        expect(usable).toBe(false);
        clock.advance(1);
        await waiting;
      } finally {
        release();
      }
      expect((await driver.machinesOf(tag)).map((vm) => [vm.state, vm.task])).toEqual([
        ['running', null],
        ['running', null],
      ]);
    });

    it('fails a wait for usable machines when one of them goes, and ends it when the driver closes', async () => {
      const driver = make();
      const tag = newId();
      const specs = [spec('a', ''), spec('b', '')];
      const [a] = await driver.deployBatch(
        { isolationTag: tag, hostAffinity: false, privileged: false, specs },
        true,
      );
      const broken = driver.untilUsable!(tag);
      // The deploys' timers and the wait's own: it has found both machines.
      await vi.waitFor(() => expect(clock.pending()).toBe(3));
      await driver.delete(a!.id);
      clock.advance(TASK_MS.deploy);
      await expect(broken).rejects.toMatchObject({ code: 'not-found' });

      // Another process waits for a machine, then closes (the first one ends the deploy later).
      const other = newId();
      await driver.deploy(spec('web', other), false);
      const closing = make();
      const closed = closing.untilUsable!(other);
      // The deploy's timers in both processes, and the wait's own.
      await vi.waitFor(() => expect(clock.pending()).toBe(3));
      await closing.close();
      await expect(closed).rejects.toMatchObject({ code: 'unavailable' });
      expect(clock.pending()).toBe(1);
    });

    it('finishes and announces a task begun before a restart', async () => {
      const before = make();
      const vm = await before.deploy(spec('web', newId()), false);
      await before.close();

      const after = make();
      const events = record(after);
      // No read here: the new driver must pick up the pending task on its own when it starts,
      // and wait for it with a timer of its own.
      await vi.waitFor(() => expect(clock.pending()).toBe(1));
      clock.advance(TASK_MS.deploy);
      await vi.waitFor(() => expect(events.some((e) => e.machine.id === vm.id)).toBe(true));
      expect((await after.load(vm.id))?.name).toBe(vm.name);
      expect(events).toEqual([
        {
          type: 'updated',
          machine: expect.objectContaining({ id: vm.id, state: 'running', task: null }),
        },
      ]);
    });

    it('announces the end of a task once when two processes share the database', async () => {
      const one = make();
      const vm = await one.deploy(spec('web', newId()), false);
      const two = make();
      const events = [...[one, two].map(record)];
      // Both know the task: one started it, the other found it pending on start-up and on read;
      // each waits for it with a timer of its own.
      expect((await two.load(vm.id))?.task?.name).toBe('deploying');
      expect(clock.pending()).toBe(2);
      clock.advance(TASK_MS.deploy);
      // Both timers fired; closing waits for what each process did about it.
      await one.close();
      await two.close();
      expect(events.flat().map((e) => e.machine.id)).toEqual([vm.id]);
    });

    it('ends every task inside the call at speed 0, and still announces it', async () => {
      const driver = make(0);
      const events = record(driver);
      const vm = await driver.deploy(spec('web', newId()), false);
      expect(vm).toMatchObject({ state: 'running', task: null });
      expect(await driver.stop(vm.id)).toMatchObject({ state: 'off', task: null });
      expect(events.map((e) => [e.type, e.machine.state])).toEqual([
        ['updated', 'running'],
        ['updated', 'off'],
      ]);
    });

    it('deploys a batch at speed 0 with one write to the store, announcing each machine', async () => {
      const machines = createSimMachineStore(store.db);
      const writes: string[] = [];
      const counted = { ...machines };
      for (const name of ['insert', 'update', 'remove', 'finishTask'] as const) {
        counted[name] = ((...args: never[]) => {
          writes.push(name);
          return (machines[name] as (...a: never[]) => unknown)(...args);
        }) as never;
      }
      const driver = createSimDriver({ store: counted, dataDir, speed: 0, clock });
      drivers.push(driver);
      const events = record(driver);
      const tag = newId();
      const deployed = await driver.deployBatch(
        {
          isolationTag: tag,
          hostAffinity: false,
          privileged: false,
          specs: [spec('a', ''), spec('b', '')],
        },
        true,
      );
      expect(writes).toEqual(['insert']);
      expect(deployed.map((vm) => [vm.name, vm.state, vm.task])).toEqual([
        [`a#${tag}`, 'running', null],
        [`b#${tag}`, 'running', null],
      ]);
      expect(events.map((e) => [e.type, e.machine.name, e.machine.state]).sort()).toEqual([
        ['updated', `a#${tag}`, 'running'],
        ['updated', `b#${tag}`, 'running'],
      ]);
      // Deployed again: the machines stand, nothing is written or announced.
      writes.length = 0;
      events.length = 0;
      await driver.deployBatch(
        { isolationTag: tag, hostAffinity: false, privileged: false, specs: [spec('a', '')] },
        true,
      );
      expect(writes).toEqual([]);
      expect(events).toEqual([]);
    });

    it('keeps the machine another process deployed under the same name', async () => {
      const one = make(0);
      const two = make(0);
      const tag = newId();
      const [first, second] = await Promise.all([
        one.deploy(spec('web', tag), false),
        two.deploy(spec('web', tag), false),
      ]);
      expect(second!.id).toBe(first!.id);
      expect(await one.machinesOf(tag)).toHaveLength(1);
    });

    it('applies a running task first when another operation comes', async () => {
      const driver = make();
      const vm = await driver.deploy(spec('web', newId()), false);
      const stopping = await driver.stop(vm.id);
      expect(stopping.task?.name).toBe('stopping');
      // The deploy's outcome (running) was applied, so stopping starts from a running machine.
      expect(stopping.state).toBe('running');
    });

    it('shows a template whose disks are copying as initializing', async () => {
      const driver = make();
      const tag = newId();
      const t = spec('kali', tag, {
        disks: [0, 1].map((i) =>
          disk(`[ds] ${tag}/kali_${i}.vmdk`, `[ds] stock/kali_${i}.vmdk`, i),
        ),
      });
      expect(await driver.createDisks(t)).toBe(0);
      expect(await driver.refresh(t)).toMatchObject({
        id: '',
        status: 'created',
        task: { name: 'initializing', progress: 0 },
      });
      // The copies run one after another.
      expect(await driver.verifyDisks(t)).toEqual([0, 0]);
      await driver.deleteDisks(t);
      expect(await driver.verifyDisks(t)).toEqual([-1, -1]);
    });

    it('never deletes stock disks, only those containing the tag', async () => {
      const driver = make(0);
      const stock = spec('kali', newId(), {
        disks: [disk('[ds] stock/kali_0.vmdk', '[ds] base/kali.vmdk')],
      });
      expect(await driver.createDisks(stock)).toBe(100);
      await driver.deleteDisks(stock);
      expect(await driver.verifyDisks(stock)).toEqual([100]);
    });

    it('keeps machines across a restart', async () => {
      const tag = newId();
      const first = make(0);
      const vm = await first.deploy(spec('web', tag), false);
      await first.close();
      const second = make(0);
      expect(await second.find(tag)).toEqual([vm]);
    });

    it('changes ISO, boot delay and guest settings, refusing a NIC it does not have', async () => {
      const driver = make(0);
      const tag = newId();
      const vm = await driver.deploy(spec('web', tag), false);
      for (const change of [
        { kind: 'iso', path: `${tag}/tools.iso` },
        { kind: 'boot', delaySeconds: 10 },
        { kind: 'guest', key: 'guestinfo.a', value: '1' },
        { kind: 'net', nic: 0, network: '' },
      ] as const) {
        await expect(driver.changeConfiguration(vm.id, change, true)).resolves.toMatchObject({
          id: vm.id,
        });
      }
      expect(await driver.netOptions(tag)).toEqual(['bridge-net']);
      await expect(
        driver.changeConfiguration(vm.id, { kind: 'net', nic: 3, network: `lan#${tag}` }, true),
      ).rejects.toMatchObject({ name: 'DriverError', code: 'invalid-request' });
      await expect(
        driver.changeConfiguration(vm.id, { kind: 'boot', delaySeconds: -1 }, true),
      ).rejects.toMatchObject({ name: 'DriverError', code: 'invalid-request' });
    });

    it("shows a machine's guest settings in its console's shell where a real guest reads them", async () => {
      const driver = make(0);
      const vm = await driver.deploy(
        spec('web', newId(), { guestSettings: [{ key: 'guestinfo.flag', value: 'old' }] }),
        false,
      );
      // A change given later wins, as in a guest that boots with it.
      const change = { kind: 'guest', key: 'guestinfo.flag', value: 'f00d' } as const;
      await driver.changeConfiguration(vm.id, change, true);
      const typed = `cat ${fwCfgPath('guestinfo.flag')} ${GUEST_SETTINGS_FILE}\n`;
      const files = machineFiles('web', [{ key: 'guestinfo.flag', value: 'f00d' }]);
      const answered = applyInputs(newTerminal('web', files), consoleInputs(typed));
      expect(answered.lines.slice(-2).map((l) => l.text)).toEqual(['f00d', 'guestinfo.flag=f00d']);

      // The viewer of the sim's console sees the screen of a machine with that setting.
      const shown = screenAfterTyping(typed, (viewer) => driver.openConsole!(vm.id, viewer));
      const expected = screenAfterTyping(typed, async (viewer) =>
        startRfbSession(viewer, createMachineDisplay('web', files)),
      );
      expect((await shown).equals(await expected)).toBe(true);
    });

    it('lists ISO files of the tag and the public folder', async () => {
      const { mkdirSync, writeFileSync } = await import('node:fs');
      const tag = newId();
      const publicDir = join(dataDir, 'isos', '00000000-0000-0000-0000-000000000000');
      mkdirSync(join(dataDir, 'isos', tag), { recursive: true });
      mkdirSync(publicDir, { recursive: true });
      writeFileSync(join(dataDir, 'isos', tag, 'tools.iso'), '');
      writeFileSync(join(dataDir, 'isos', tag, 'notes.txt'), '');
      writeFileSync(join(publicDir, 'kali.iso'), '');
      const driver = make(0);
      expect(await driver.isoOptions(tag)).toEqual([
        '00000000-0000-0000-0000-000000000000/kali.iso',
        `${tag}/tools.iso`,
      ]);
      expect(await driver.isoOptions(newId())).toEqual([
        '00000000-0000-0000-0000-000000000000/kali.iso',
      ]);
    });
  });
});
