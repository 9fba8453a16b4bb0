import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { newId } from '../../../server/core/ids';
import {
  EMPTY_TAG,
  type DriverEvent,
  type HypervisorDriver,
  type Machine,
  type MachineSpec,
} from '../../../server/hypervisor';

// The behaviour every hypervisor driver must have (wire reference §4.1, §4.11), whatever it runs
// on. A driver's test file calls driverContract with a factory; the factory supplies the specs
// its machines deploy from (a real driver needs real base images) and how long its tasks may
// take, so the suite waits for tasks to end (vi.waitFor, with that deadline), not for a time.
// Every test works under tags of its own, so the tests may run at once on one driver, and
// deploys as few machines as it can: a real driver boots each for seconds.

export interface DriverUnderTest {
  driver: HypervisorDriver;
  close(): Promise<void>;
  /** The driver was given a console dependency: a running machine's display has a url. */
  consoles?: boolean;
  /** A spec of `tag` whose disks are ready: it deploys at once. */
  specFor(name: string, tag: string, fields?: Partial<MachineSpec>): MachineSpec;
  /** A spec of `tag` whose disk is a copy of a stock disk, made under the tag by createDisks. */
  copiedSpecFor(name: string, tag: string): MachineSpec;
  /** A spec of `tag` whose disk is a stock disk (not under the tag), which deleteDisks keeps. */
  stockSpecFor(name: string, tag: string): MachineSpec;
  /** The longest a task (a deploy, a start, a disk copy) may take. */
  taskDeadlineMs: number;
}

const POLL_MS = 10;

export const nic = (network: string, index = 0) => ({ index, network, adapter: null, mac: null });

/** A small machine of `tag` on `lan`, started at deploy, cloned from `baseImage` (cluster drivers). */
export function clusterSpec(
  name: string,
  tag: string,
  baseImage: string,
  fields: Partial<MachineSpec> = {},
): MachineSpec {
  return {
    templateId: newId(),
    name,
    isolationTag: tag,
    cpu: { sockets: 1, coresPerSocket: 1 },
    memoryMiB: 512,
    guestOs: null,
    disks: [{ index: 0, path: '', source: null, controller: null, sizeGiB: 1 }],
    nics: [nic('lan')],
    guestSettings: [],
    iso: null,
    bootDelaySeconds: 0,
    autoStart: true,
    hostAffinity: false,
    useUplink: false,
    baseImage,
    baseImageSource: null,
    ...fields,
  };
}

/** Rejects with the driver's error of this code. */
const driverError = (code: string) => expect.objectContaining({ name: 'DriverError', code });

export function driverContract(name: string, make: () => Promise<DriverUnderTest>): void {
  describe(`hypervisor driver contract: ${name}`, () => {
    let subject: DriverUnderTest;
    let driver: HypervisorDriver;
    const tag = () => newId();
    const spec = (n: string, t: string, fields?: Partial<MachineSpec>) =>
      subject.specFor(n, t, fields);
    const whileTasksRun = () => ({ timeout: subject.taskDeadlineMs, interval: POLL_MS });

    /** The machine once its task has ended. */
    async function untilIdle(id: string): Promise<Machine> {
      const vm = await vi.waitFor(async () => {
        const vm = await driver.load(id);
        if (vm?.task) throw new Error(`machine ${id} still has task ${vm.task.name}`);
        return vm;
      }, whileTasksRun());
      if (!vm) throw new Error(`machine ${id} is gone`);
      return vm;
    }

    async function untilDisksReady(s: MachineSpec): Promise<void> {
      await vi.waitFor(
        async () => expect((await driver.verifyDisks(s)).filter((p) => p < 100)).toEqual([]),
        whileTasksRun(),
      );
    }

    /** A machine of a fresh tag, deployed and idle. */
    async function idleMachine(n: string, fields?: Partial<MachineSpec>) {
      const t = tag();
      const vm = await driver.deploy(spec(n, t, fields), false);
      return { t, vm: await untilIdle(vm.id) };
    }

    beforeAll(async () => {
      subject = await make();
      driver = subject.driver;
    });
    afterAll(async () => {
      await subject?.close();
    });

    it('deploys a spec as {name}#{tag}, deployed, and it reaches running', async () => {
      const t = tag();
      const vm = await driver.deploy(spec('web', t), false);
      expect(vm).toMatchObject({ name: `web#${t}`, status: 'deployed', isTemplate: false });
      expect(vm.id).toMatch(/\S/);
      const idle = await untilIdle(vm.id);
      expect(idle).toMatchObject({ id: vm.id, state: 'running', task: null, status: 'deployed' });
    });

    it('returns the existing machine when the name is deployed again', async () => {
      const t = tag();
      const first = await driver.deploy(spec('web', t), false);
      const again = await driver.deploy(spec('web', t), false);
      expect(again.id).toBe(first.id);
      expect(await driver.find(t)).toHaveLength(1);
    });

    it('deploys a name once when it is deployed twice at once', async () => {
      const t = tag();
      const [first, second] = await Promise.all([
        driver.deploy(spec('web', t), false),
        driver.deploy(spec('web', t), false),
      ]);
      expect(second.id).toBe(first.id);
      expect(await driver.find(t)).toHaveLength(1);
    });

    it('loads a machine by id and by name#tag, and null for an unknown one', async () => {
      const t = tag();
      const vm = await driver.deploy(spec('web', t), false);
      expect((await driver.load(vm.id))?.name).toBe(`web#${t}`);
      expect((await driver.load(`web#${t}`))?.id).toBe(vm.id);
      expect(await driver.load(newId())).toBeNull();
    });

    it('starts, stops and resets a machine', async () => {
      const { vm } = await idleMachine('web', { autoStart: false });
      expect(vm.state).toBe('off');
      await driver.start(vm.id);
      expect((await untilIdle(vm.id)).state).toBe('running');
      await driver.stop(vm.id);
      expect((await untilIdle(vm.id)).state).toBe('off');
      await driver.changeState(vm.id, 'reset');
      expect((await untilIdle(vm.id)).state).toBe('running');
    });

    it('saves a machine, which keeps it as it was', async () => {
      const { vm } = await idleMachine('web');
      expect((await driver.save(vm.id)).id).toBe(vm.id);
      expect(await untilIdle(vm.id)).toMatchObject({ state: 'running', status: 'deployed' });
    });

    it('reverts a machine to running when it was running, or says it cannot', async () => {
      const { vm } = await idleMachine('web');
      const reverting = driver.revert(vm.id);
      if (driver.capabilities.operations.includes('revert')) {
        expect((await reverting).id).toBe(vm.id);
      } else {
        // A driver whose machines have no snapshot may still go back to the saved disks.
        const outcome = await reverting.catch((error: unknown) => error);
        if (!('id' in (outcome as object))) expect(outcome).toEqual(driverError('unsupported'));
      }
      expect(await untilIdle(vm.id)).toMatchObject({ state: 'running' });
    });

    it("answers no question a machine does not ask, with the driver's error", async () => {
      const t = tag();
      const vm = await driver.deploy(spec('web', t), false);
      const answer = { questionId: 'q', choiceKey: 'yes' };
      await expect(driver.answer(vm.id, answer)).rejects.toEqual(driverError('invalid-state'));
      await expect(driver.answer(newId(), answer)).rejects.toEqual(driverError('not-found'));
    });

    it('refuses operations on an unknown machine with not-found', async () => {
      await expect(driver.start(newId())).rejects.toEqual(driverError('not-found'));
      await expect(driver.delete(newId())).rejects.toEqual(driverError('not-found'));
    });

    it('deletes a machine: it comes back as initialized and is gone', async () => {
      const t = tag();
      const vm = await driver.deploy(spec('web', t), false);
      const deleted = await driver.delete(vm.id);
      expect(deleted).toMatchObject({ id: vm.id, name: `web#${t}`, status: 'initialized' });
      expect(await driver.load(vm.id)).toBeNull();
      expect(await driver.load(`web#${t}`)).toBeNull();
    });

    it("starts and stops all of a tag's machines, and deletes them all", async () => {
      const [a, b] = [tag(), tag()];
      const off = { autoStart: false };
      await driver.deploy(spec('web', a, off), false);
      await driver.deploy(spec('db', a, off), false);
      const other = await driver.deploy(spec('web', b, off), false);
      const started = await driver.startAll(a);
      expect(started.map((v) => v.name).sort()).toEqual([`db#${a}`, `web#${a}`]);
      for (const vm of started) expect((await untilIdle(vm.id)).state).toBe('running');
      const stopped = await driver.stopAll(a);
      expect(stopped).toHaveLength(2);
      for (const vm of stopped) expect((await untilIdle(vm.id)).state).toBe('off');
      expect((await untilIdle(other.id)).state).toBe('off');

      const deleted = await driver.deleteAll(a);
      expect(deleted.map((v) => v.name).sort()).toEqual([`db#${a}`, `web#${a}`]);
      expect(await driver.find(a)).toEqual([]);
      expect((await driver.load(other.id))?.name).toBe(`web#${b}`);
    });

    it('finds machines whose id or name contains the term, ordered by name', async () => {
      const [a, b] = [tag(), tag()];
      const web = await driver.deploy(spec('web', a), false);
      await driver.deploy(spec('db', a), false);
      await driver.deploy(spec('web', b), false);
      expect((await driver.find(a)).map((v) => v.name)).toEqual([`db#${a}`, `web#${a}`]);
      // An id is a term like any other: where ids are short numbers (proxmox's VMIDs), another
      // machine's random tag may contain it too, and is rightly found with it.
      const byId = await driver.find(web.id);
      expect(byId.map((v) => v.id)).toContain(web.id);
      for (const vm of byId) expect(`${vm.id} ${vm.name}`).toContain(web.id);
      expect(await driver.find(newId())).toEqual([]);
    });

    it('lists the machines of one isolation tag, ordered by name', async () => {
      const [a, b] = [tag(), tag()];
      await driver.deploy(spec('web', a), false);
      await driver.deploy(spec('db', a), false);
      const other = await driver.deploy(spec('web', b), false);
      expect((await driver.machinesOf(a)).map((v) => v.name)).toEqual([`db#${a}`, `web#${a}`]);
      expect((await driver.machinesOf(b)).map((v) => v.id)).toEqual([other.id]);
      // A tag is not a search term: a machine's id is no tag.
      expect(await driver.machinesOf(other.id)).toEqual([]);
      await driver.deleteAll(a);
      expect(await driver.machinesOf(a)).toEqual([]);
    });

    it('copies a source disk before the spec can deploy, and deletes the copy', async () => {
      const t = tag();
      const copied = subject.copiedSpecFor('kali', t);
      expect(await driver.refresh(copied)).toMatchObject({
        name: `kali#${t}`,
        status: 'created',
        state: 'off',
      });
      expect(await driver.verifyDisks(copied)).toEqual([-1]);
      await expect(driver.deploy(copied, false)).rejects.toEqual(driverError('invalid-state'));

      const progress = await driver.createDisks(copied);
      expect(progress).toBeGreaterThanOrEqual(0);
      expect(progress).toBeLessThanOrEqual(100);
      await untilDisksReady(copied);
      expect(await driver.createDisks(copied)).toBe(100);
      expect(await driver.refresh(copied)).toMatchObject({ status: 'initialized', task: null });

      const vm = await driver.deploy(copied, false);
      expect(vm.name).toBe(`kali#${t}`);
      expect((await driver.refresh(copied)).id).toBe(vm.id);
      await driver.delete(vm.id);
      await driver.deleteDisks(copied);
      expect(await driver.verifyDisks(copied)).toEqual([-1]);
    });

    it('never deletes a stock disk', async () => {
      const stock = subject.stockSpecFor('kali', tag());
      await driver.createDisks(stock);
      await untilDisksReady(stock);
      await driver.deleteDisks(stock);
      expect(await driver.verifyDisks(stock)).toEqual(stock.disks.map(() => 100));
    });

    it('reports 100 from createDisks when every disk is present', async () => {
      const s = spec('web', tag());
      expect(await driver.verifyDisks(s)).toEqual(s.disks.map(() => 100));
      expect(await driver.createDisks(s)).toBe(100);
      expect(await driver.refresh(s)).toMatchObject({ status: 'initialized', task: null });
    });

    it('gives every tag private copies of the nets', async () => {
      const [a, b] = [tag(), tag()];
      await driver.deploy(spec('web', a), false);
      await driver.deploy(spec('web', b), false);
      const optionsA = await driver.netOptions(a);
      const optionsB = await driver.netOptions(b);
      expect(optionsA).toContain(`lan#${a}`);
      expect(optionsB).toContain(`lan#${b}`);
      expect(optionsA.join()).not.toContain(b);
      expect(optionsA).not.toContain('lan');
    });

    it("hands a tag's machines to another tag when it can retag, else refuses", async () => {
      const [from, to] = [tag(), tag()];
      if (!driver.capabilities.retag) {
        await expect(driver.retag(from, to)).rejects.toEqual(driverError('invalid-request'));
        return;
      }
      const twoNets = { nics: [nic('lan'), nic('bridge-net', 1)] };
      const web = await untilIdle((await driver.deploy(spec('web', from, twoNets), true)).id);
      const db = await untilIdle((await driver.deploy(spec('db', from), false)).id);
      const events: DriverEvent[] = [];
      const unsubscribe = driver.subscribe((event) => events.push(event));
      const moved = await driver.retag(from, to);
      unsubscribe();
      expect(moved.map((m) => [m.id, m.name])).toEqual([
        [db.id, `db#${to}`],
        [web.id, `web#${to}`],
      ]);
      // Isolated nets follow the tag; a reserved net stays what it is.
      expect(moved[1]!.nics.map((n) => n.network)).toEqual([`lan#${to}`, 'bridge-net']);
      expect(await driver.machinesOf(from)).toEqual([]);
      expect((await driver.load(`web#${to}`))?.state).toBe(web.state);
      expect(await driver.netOptions(to)).toContain(`lan#${to}`);
      expect(
        events
          .filter((e) => e.type === 'updated' && e.machine.name.endsWith(`#${to}`))
          .map((e) => e.machine.name)
          .sort(),
      ).toEqual([`db#${to}`, `web#${to}`]);
      // Machines of the target tag are never joined by another tag's.
      await driver.deploy(spec('app', from), false);
      await expect(driver.retag(from, to)).rejects.toEqual(driverError('invalid-request'));
      await driver.deleteAll(from);
      await driver.deleteAll(to);
    });

    it('keeps a reserved net untagged only for a privileged deploy', async () => {
      const [builder, player] = [tag(), tag()];
      const bridged = { nics: [nic('bridge-net')] };
      await driver.deploy(spec('web', builder, bridged), true);
      await driver.deploy(spec('web', player, bridged), false);
      expect(await driver.netOptions(builder)).not.toContain(`bridge-net#${builder}`);
      expect(await driver.netOptions(player)).toContain(`bridge-net#${player}`);
    });

    it('changes a running machine as its capabilities say, and refuses what it cannot', async () => {
      const { t, vm } = await idleMachine('web');
      const { liveNicChange, liveIsoChange, guestChange } = driver.capabilities;
      const moving = driver.changeConfiguration(
        vm.id,
        { kind: 'net', nic: 0, network: `wan#${t}` },
        true,
      );
      if (liveNicChange) {
        expect((await moving).nics).toEqual([{ index: 0, network: `wan#${t}` }]);
        expect(await driver.netOptions(t)).toContain(`wan#${t}`);
        await expect(
          driver.changeConfiguration(vm.id, { kind: 'net', nic: 3, network: `lan#${t}` }, true),
        ).rejects.toEqual(driverError('invalid-request'));
      } else {
        await expect(moving).rejects.toEqual(driverError('unsupported'));
      }

      const isos = await driver.isoOptions(t);
      const mounting = driver.changeConfiguration(
        vm.id,
        { kind: 'iso', path: isos[0] ?? `${t}/tools.iso` },
        true,
      );
      if (liveIsoChange) expect((await mounting).id).toBe(vm.id);
      else await expect(mounting).rejects.toEqual(driverError('unsupported'));

      const setting = driver.changeConfiguration(
        vm.id,
        { kind: 'guest', key: 'guestinfo.flag', value: '1' },
        true,
      );
      if (guestChange) expect((await setting).id).toBe(vm.id);
      else await expect(setting).rejects.toEqual(driverError('unsupported'));

      await expect(
        driver.changeConfiguration(newId(), { kind: 'boot', delaySeconds: 5 }, true),
      ).rejects.toEqual(driverError('not-found'));
    });

    it('lists ISOs of the tag and the public folder only', async () => {
      const t = tag();
      const isos = await driver.isoOptions(t);
      expect(Array.isArray(isos)).toBe(true);
      for (const iso of isos) expect([t, EMPTY_TAG]).toContain(iso.split('/')[0]);
    });

    it('shows the console of a running machine, and none of an off one', async () => {
      const t = tag();
      const on = await driver.deploy(spec('web', t), false);
      await untilIdle(on.id);
      const display = await driver.display(on.id);
      expect(display).toMatchObject({ machineId: on.id, isRunning: true });
      if (subject.consoles) expect(display.url).toMatch(/\S/);

      const off = await driver.deploy(spec('db', t, { autoStart: false }), false);
      await untilIdle(off.id);
      expect(await driver.display(off.id)).toMatchObject({
        machineId: off.id,
        isRunning: false,
        url: '',
        ticket: null,
      });
    });

    it('deploys a batch: only missing machines, all present once it resolves', async () => {
      const t = tag();
      const existing = await driver.deploy(spec('web', t), false);
      const vms = await driver.deployBatch(
        {
          isolationTag: t,
          hostAffinity: false,
          privileged: false,
          specs: [spec('web', t), spec('db', t)],
        },
        true,
      );
      // Every machine of the context, the existing one as it was, ordered by name.
      expect(vms.map((v) => v.name)).toEqual([`db#${t}`, `web#${t}`]);
      expect(vms[1]?.id).toBe(existing.id);
      expect(await driver.find(t)).toHaveLength(2);
    });

    it('deploys a name once when a batch and a deploy of it run at once', async () => {
      const t = tag();
      const context = { isolationTag: t, hostAffinity: false, privileged: false };
      const [vm, vms] = await Promise.all([
        driver.deploy(spec('web', t), false),
        driver.deployBatch({ ...context, specs: [spec('web', t)] }, true),
      ]);
      expect(vms.map((v) => v.id)).toEqual([vm.id]);
      expect(await driver.find(t)).toHaveLength(1);
    });

    it('deploys a batch in the background when not asked to wait', async () => {
      const t = tag();
      const existing = await driver.deploy(spec('web', t), false);
      const events: DriverEvent[] = [];
      const unsubscribe = driver.subscribe((event) => events.push(event));
      const specs = [spec('web', t), spec('db', t), spec('app', t)];
      const vms = await driver.deployBatch(
        { isolationTag: t, hostAffinity: false, privileged: false, specs },
        false,
      );
      // At once: the machines that existed before the call; the others follow.
      expect(vms.map((v) => v.id)).toEqual([existing.id]);
      await vi.waitFor(
        async () =>
          expect((await driver.find(t)).map((v) => v.name)).toEqual([
            `app#${t}`,
            `db#${t}`,
            `web#${t}`,
          ]),
        whileTasksRun(),
      );
      // No caller is told of a background deploy: the driver announces each once it has ended.
      const ended = (n: string) => (e: DriverEvent) =>
        e.machine.name === `${n}#${t}` && e.machine.task === null && e.machine.state === 'running';
      await vi.waitFor(
        () => expect([ended('app'), ended('db')].map((f) => events.some(f))).toEqual([true, true]),
        whileTasksRun(),
      );
      unsubscribe();
    });

    it('keeps a batch with host affinity on one host and starts it together', async () => {
      const t = tag();
      const events: DriverEvent[] = [];
      const unsubscribe = driver.subscribe((event) => events.push(event));
      const specs = [spec('web', t), spec('db', t, { autoStart: false }), spec('app', t)];
      const vms = await driver.deployBatch(
        { isolationTag: t, hostAffinity: true, privileged: false, specs },
        true,
      );
      expect(vms.map((v) => v.name)).toEqual([`app#${t}`, `db#${t}`, `web#${t}`]);
      expect(new Set(vms.map((v) => v.host)).size).toBe(1);
      // Started by the batch once all exist, whatever each spec said of starting on its own.
      await vi.waitFor(async () => {
        for (const vm of vms) {
          expect(await driver.load(vm.id)).toMatchObject({
            state: 'running',
            task: null,
            host: vms[0]!.host,
          });
        }
      }, whileTasksRun());
      const running = (id: string) =>
        events.some((e) => e.machine.id === id && e.machine.state === 'running' && !e.machine.task);
      await vi.waitFor(
        () => expect(vms.map((v) => running(v.id))).toEqual([true, true, true]),
        whileTasksRun(),
      );
      unsubscribe();

      // A machine added to the tag later joins the others' host.
      const [late] = await driver
        .deployBatch(
          { isolationTag: t, hostAffinity: true, privileged: false, specs: [spec('zed', t)] },
          true,
        )
        .then((all) => all.filter((v) => v.name === `zed#${t}`));
      expect(late?.host).toBe(vms[0]!.host);
      await untilIdle(late!.id);
    });

    it('announces each operation once it has ended, and a delete not at all', async () => {
      const events: DriverEvent[] = [];
      const unsubscribe = driver.subscribe((event) => events.push(event));
      const t = tag();
      const vm = await driver.deploy(spec('web', t, { autoStart: false }), false);
      const ended = (state: string) => (e: DriverEvent) =>
        e.machine.id === vm.id && e.machine.state === state && e.machine.task === null;
      await vi.waitFor(() => expect(events.some(ended('off'))).toBe(true), whileTasksRun());
      await untilIdle(vm.id);

      events.length = 0;
      await driver.start(vm.id);
      await vi.waitFor(() => expect(events.some(ended('running'))).toBe(true), whileTasksRun());
      await untilIdle(vm.id);

      events.length = 0;
      await driver.stop(vm.id);
      await vi.waitFor(() => expect(events.some(ended('off'))).toBe(true), whileTasksRun());
      await untilIdle(vm.id);

      // The caller has the deleted machine and says so itself.
      events.length = 0;
      await driver.delete(vm.id);
      expect(events.filter((e) => e.machine.id === vm.id)).toEqual([]);
      unsubscribe();
    });

    it('refuses what it cannot do with the error of its code', async () => {
      const unknown = newId();
      // One call at a time: a refusal made before its turn to be awaited is unhandled.
      for (const refused of [
        () => driver.stop(unknown),
        () => driver.save(unknown),
        () => driver.revert(unknown),
        () => driver.changeState(unknown, 'reset'),
        () => driver.display(unknown),
      ]) {
        await expect(refused()).rejects.toEqual(driverError('not-found'));
      }
      const t = tag();
      await expect(driver.deploy(spec('', t), false)).rejects.toEqual(
        driverError('invalid-request'),
      );
      const vm = await driver.deploy(spec('web', t), false);
      await expect(driver.changeState(vm.id, 'pause' as never)).rejects.toEqual(
        driverError('invalid-request'),
      );
      // A batch whose disks are not there yet deploys nothing of it and says why.
      const context = {
        isolationTag: t,
        hostAffinity: false,
        privileged: false,
        specs: [subject.copiedSpecFor('kali', t)],
      };
      await expect(driver.deployBatch(context, true)).rejects.toEqual(driverError('invalid-state'));
      expect((await driver.machinesOf(t)).map((v) => v.name)).toEqual([`web#${t}`]);
      // Terms that match nothing do nothing.
      expect(await driver.startAll(unknown)).toEqual([]);
      expect(await driver.stopAll(unknown)).toEqual([]);
      expect(await driver.deleteAll(unknown)).toEqual([]);
      await untilIdle(vm.id);
    });

    it('announces the tasks it ends on its own, until unsubscribed', async () => {
      const events: DriverEvent[] = [];
      const unsubscribe = driver.subscribe((event) => events.push(event));
      const t = tag();
      const vm = await driver.deploy(spec('web', t), false);
      const ran = (e: DriverEvent) => e.machine.id === vm.id && e.machine.state === 'running';
      await vi.waitFor(() => expect(events.some(ran)).toBe(true), whileTasksRun());
      unsubscribe();
      const seen = events.length;
      await driver.stop(vm.id);
      await untilIdle(vm.id);
      expect(events.slice(seen).filter((e) => e.machine.id === vm.id)).toEqual([]);
    });

    it('says it is ready, and counts a machine it started among the running ones', async () => {
      await expect(driver.ready()).resolves.toBeUndefined();
      const { vm } = await idleMachine('web', { autoStart: false });
      const before = await driver.status();
      expect(before).toMatchObject({
        kind: driver.capabilities.kind,
        acceleration: driver.capabilities.acceleration,
      });
      expect(before.orphans).toBeGreaterThanOrEqual(0);
      await driver.start(vm.id);
      await untilIdle(vm.id);
      const after = await driver.status();
      // Other tests' machines may still be starting: at least this one more.
      expect(after.running).toBeGreaterThan(before.running);
      if (after.maxRunning !== null) expect(after.running).toBeLessThanOrEqual(after.maxRunning);
    });
  });
}
