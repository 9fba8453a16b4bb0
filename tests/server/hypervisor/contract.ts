import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { newId } from '../../../server/core/ids';
import { toVmTemplate, type VmTemplate } from '../../../server/core/templates';
import type { HypervisorDriver, Vm } from '../../../server/hypervisor/driver';

// The behaviour every hypervisor driver must have (wire reference §4.1, §4.11), whatever it runs
// on. A driver's test file calls driverContract with a factory; the factory decides how fast its
// tasks run, so the suite waits for tasks to end (vi.waitFor, with a deadline), not for a time.

export interface DriverUnderTest {
  driver: HypervisorDriver;
  close(): Promise<void>;
  /** The driver was given a console dependency: a running machine's display has a url. */
  consoles?: boolean;
}

const TASK_DEADLINE_MS = 10_000;
const POLL_MS = 10;
const whileTasksRun = { timeout: TASK_DEADLINE_MS, interval: POLL_MS };

/** A complete template for a tag; its disk is blank unless a Source is given. */
export function template(name: string, tag: string, fields: Partial<VmTemplate> = {}): VmTemplate {
  return toVmTemplate({
    Id: newId(),
    Name: name,
    IsolationTag: tag,
    Cpu: '1x2',
    Ram: 4,
    Eth: [{ Id: 0, Net: 'lan', Type: 'e1000' }],
    Disks: [{ Id: 0, Path: `[ds] ${tag}/blank-${name}.vmdk`, Controller: 'lsilogic', Size: 10 }],
    ...fields,
  });
}

export const nic = (net: string, id = 0) => ({
  Id: id,
  Net: net,
  Key: null,
  Type: 'e1000',
  Mac: null,
  Ip: null,
  Vlan: 0,
});

/** The machine once its task has ended. */
export async function untilIdle(driver: HypervisorDriver, id: string): Promise<Vm> {
  const vm = await vi.waitFor(async () => {
    const vm = await driver.load(id);
    if (vm?.task) throw new Error(`machine ${id} still has task ${vm.task.name}`);
    return vm;
  }, whileTasksRun);
  if (!vm) throw new Error(`machine ${id} is gone`);
  return vm;
}

async function untilDisksReady(driver: HypervisorDriver, t: VmTemplate): Promise<void> {
  await vi.waitFor(
    async () => expect((await driver.verifyDisks(t)).filter((p) => p < 100)).toEqual([]),
    whileTasksRun,
  );
}

export function driverContract(name: string, make: () => Promise<DriverUnderTest>): void {
  describe(`hypervisor driver contract: ${name}`, () => {
    let subject: DriverUnderTest;
    let driver: HypervisorDriver;
    // Every test works under its own tags, so tests sharing the driver cannot see each other.
    const tag = () => newId();

    beforeAll(async () => {
      subject = await make();
      driver = subject.driver;
    });
    afterAll(async () => {
      await subject?.close();
    });

    it('deploys a template as {name}#{tag}, deployed, and it reaches running', async () => {
      const t = tag();
      const vm = await driver.deploy(template('web', t), false);
      expect(vm).toMatchObject({
        name: `web#${t}`,
        status: 'deployed',
        hypervisorType: driver.type,
        isTemplate: false,
      });
      expect(vm.id).toMatch(/\S/);
      const idle = await untilIdle(driver, vm.id);
      expect(idle).toMatchObject({ id: vm.id, state: 'running', task: null, status: 'deployed' });
    });

    it('returns the existing machine when the name is deployed again', async () => {
      const t = tag();
      const first = await driver.deploy(template('web', t), false);
      const again = await driver.deploy(template('web', t), false);
      expect(again.id).toBe(first.id);
      expect(await driver.find(t)).toHaveLength(1);
    });

    it('loads a machine by id and by name#tag, and null for an unknown one', async () => {
      const t = tag();
      const vm = await driver.deploy(template('web', t), false);
      expect((await driver.load(vm.id))?.name).toBe(`web#${t}`);
      expect((await driver.load(`web#${t}`))?.id).toBe(vm.id);
      expect(await driver.load(newId())).toBeNull();
    });

    it('starts and stops a machine', async () => {
      const t = tag();
      const vm = await driver.deploy(template('web', t, { AutoStart: false }), false);
      expect((await untilIdle(driver, vm.id)).state).toBe('off');
      await driver.start(vm.id);
      expect((await untilIdle(driver, vm.id)).state).toBe('running');
      await driver.stop(vm.id);
      expect((await untilIdle(driver, vm.id)).state).toBe('off');
      await driver.changeState({ id: vm.id, type: 'reset' });
      expect((await untilIdle(driver, vm.id)).state).toBe('running');
    });

    it('refuses operations on an unknown machine with ResourceNotFound', async () => {
      await expect(driver.start(newId())).rejects.toMatchObject({ name: 'ResourceNotFound' });
      await expect(driver.delete(newId())).rejects.toMatchObject({ name: 'ResourceNotFound' });
    });

    it('deletes a machine: it comes back as initialized and is gone', async () => {
      const t = tag();
      const vm = await driver.deploy(template('web', t), false);
      const deleted = await driver.delete(vm.id);
      expect(deleted).toMatchObject({ id: vm.id, name: `web#${t}`, status: 'initialized' });
      expect(await driver.load(vm.id)).toBeNull();
      expect(await driver.load(`web#${t}`)).toBeNull();
    });

    it("deleteAll(tag) removes that tag's machines only", async () => {
      const [a, b] = [tag(), tag()];
      await driver.deploy(template('web', a), false);
      await driver.deploy(template('db', a), false);
      const other = await driver.deploy(template('web', b), false);
      const deleted = await driver.deleteAll(a);
      expect(deleted.map((v) => v.name).sort()).toEqual([`db#${a}`, `web#${a}`]);
      expect(await driver.find(a)).toEqual([]);
      expect((await driver.load(other.id))?.name).toBe(`web#${b}`);
    });

    it('finds machines whose id or name contains the term, ordered by name', async () => {
      const [a, b] = [tag(), tag()];
      const web = await driver.deploy(template('web', a), false);
      await driver.deploy(template('db', a), false);
      await driver.deploy(template('web', b), false);
      expect((await driver.find(a)).map((v) => v.name)).toEqual([`db#${a}`, `web#${a}`]);
      expect((await driver.find(web.id)).map((v) => v.id)).toEqual([web.id]);
      expect(await driver.find(newId())).toEqual([]);
    });

    it('lists the machines of one isolation tag, ordered by name', async () => {
      const [a, b] = [tag(), tag()];
      await driver.deploy(template('web', a), false);
      await driver.deploy(template('db', a), false);
      const other = await driver.deploy(template('web', b), false);
      expect((await driver.machinesOf(a)).map((v) => v.name)).toEqual([`db#${a}`, `web#${a}`]);
      expect((await driver.machinesOf(b)).map((v) => v.id)).toEqual([other.id]);
      // A tag is not a search term: a machine's id is no tag.
      expect(await driver.machinesOf(other.id)).toEqual([]);
      await driver.deleteAll(a);
      expect(await driver.machinesOf(a)).toEqual([]);
    });

    it('copies a source disk before the template can deploy', async () => {
      const t = tag();
      const copied = template('kali', t, {
        Disks: [
          {
            Id: 0,
            Path: `[ds] ${t}/kali_0.vmdk`,
            Source: '[ds] stock/kali.vmdk',
            Controller: 'lsilogic',
            Size: 40,
            Status: 0,
          },
        ],
      });
      expect(await driver.refresh(copied)).toMatchObject({
        name: `kali#${t}`,
        status: 'created',
        state: 'off',
      });
      expect(await driver.verifyDisks(copied)).toEqual([-1]);
      await expect(driver.deploy(copied, false)).rejects.toMatchObject({
        name: 'InvalidOperation',
      });

      const progress = await driver.createDisks(copied);
      expect(progress).toBeGreaterThanOrEqual(0);
      expect(progress).toBeLessThanOrEqual(100);
      await untilDisksReady(driver, copied);
      expect(await driver.createDisks(copied)).toBe(100);
      expect(await driver.refresh(copied)).toMatchObject({ status: 'initialized', task: null });

      const vm = await driver.deploy(copied, false);
      expect(vm.name).toBe(`kali#${t}`);
      expect((await driver.refresh(copied)).id).toBe(vm.id);
    });

    it('reports 100 from createDisks when every disk is present', async () => {
      const t = template('web', tag());
      expect(await driver.verifyDisks(t)).toEqual([100]);
      expect(await driver.createDisks(t)).toBe(100);
      expect(await driver.refresh(t)).toMatchObject({ status: 'initialized', task: null });
    });

    it('gives every tag private copies of the nets', async () => {
      const [a, b] = [tag(), tag()];
      await driver.deploy(template('web', a), false);
      await driver.deploy(template('web', b), false);
      const optionsA = (await driver.netOptions(a)).net ?? [];
      const optionsB = (await driver.netOptions(b)).net ?? [];
      expect(optionsA).toContain(`lan#${a}`);
      expect(optionsB).toContain(`lan#${b}`);
      expect(optionsA.join()).not.toContain(b);
      expect(optionsA).not.toContain('lan');
    });

    it('keeps a reserved net untagged only for a privileged deploy', async () => {
      const [builder, player] = [tag(), tag()];
      const bridged = { Eth: [nic('bridge-net')] };
      await driver.deploy(template('web', builder, bridged), true);
      await driver.deploy(template('web', player, bridged), false);
      expect((await driver.netOptions(builder)).net).not.toContain(`bridge-net#${builder}`);
      expect((await driver.netOptions(player)).net).toContain(`bridge-net#${player}`);
    });

    it('moves a NIC to another net', async () => {
      const t = tag();
      const vm = await driver.deploy(template('web', t), false);
      await driver.changeConfiguration(vm.id, { key: 'net', value: `wan#${t}:0` }, true);
      const nets = (await driver.netOptions(t)).net;
      expect(nets).toContain(`wan#${t}`);
      expect(nets).not.toContain(`lan#${t}`);
      await expect(
        driver.changeConfiguration(vm.id, { key: 'colour', value: 'blue' }, true),
      ).rejects.toMatchObject({ name: 'InvalidOperation' });
      await expect(
        driver.changeConfiguration(newId(), { key: 'net', value: `wan#${t}` }, true),
      ).rejects.toMatchObject({ name: 'ResourceNotFound' });
    });

    it('shows the console of a running machine, and none of an off one', async () => {
      const t = tag();
      const on = await driver.deploy(template('web', t), false);
      await untilIdle(driver, on.id);
      const display = await driver.display(on.id);
      expect(display).toMatchObject({ id: on.id, isolationId: t, name: 'web', isRunning: true });
      if (subject.consoles) expect(display.url).toMatch(/\S/);

      const off = await driver.deploy(template('db', t, { AutoStart: false }), false);
      await untilIdle(driver, off.id);
      expect(await driver.display(off.id)).toMatchObject({
        name: 'db',
        isRunning: false,
        url: '',
        ticket: null,
      });
    });

    it('deploys a batch: only missing machines, all present once it resolves', async () => {
      const t = tag();
      const existing = await driver.deploy(template('web', t), false);
      const vms = await driver.deployBatch(
        {
          isolationTag: t,
          hostAffinity: false,
          privileged: false,
          templates: [template('web', t), template('db', t)],
        },
        true,
      );
      expect(vms.map((v) => v.name).sort()).toEqual([`db#${t}`, `web#${t}`]);
      expect(vms.find((v) => v.name === `web#${t}`)?.id).toBe(existing.id);
      expect(await driver.find(t)).toHaveLength(2);
    });

    it('deploys a batch in the background when not asked to wait', async () => {
      const t = tag();
      const templates = [template('web', t), template('db', t)];
      await driver.deployBatch(
        { isolationTag: t, hostAffinity: false, privileged: false, templates },
        false,
      );
      await vi.waitFor(
        async () =>
          expect((await driver.find(t)).map((v) => v.name)).toEqual([`db#${t}`, `web#${t}`]),
        whileTasksRun,
      );
    });

    it('says it is ready, and counts a machine it started among the running ones', async () => {
      await expect(driver.ready()).resolves.toBeUndefined();
      const t = tag();
      const vm = await driver.deploy(template('web', t, { AutoStart: false }), false);
      await untilIdle(driver, vm.id);
      const before = await driver.runningCount();
      await driver.start(vm.id);
      await untilIdle(driver, vm.id);
      // Other tests' machines may still be starting: at least this one more.
      expect(await driver.runningCount()).toBeGreaterThan(before);
    });
  });
}
