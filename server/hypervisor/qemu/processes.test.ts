import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { machineFiles } from './layout';
import {
  diskBusOf,
  ended,
  kernelCommandLine,
  launch,
  nicModelOf,
  qemuArgs,
  type LaunchPlan,
} from './processes';
import { qmp } from './qmp';

// The hardware a template names, as QEMU gets it: e1000/e1000e/rtl8139 NICs (virtio otherwise,
// vmxnet3 included), IDE and SATA disks (virtio otherwise), with the ISO drive and the cloud-init
// seed beside them; and QEMU really builds that machine.

let root = '';

beforeEach(() => {
  // Short: the machine's unix sockets live in its folder.
  root = mkdtempSync('/tmp/tq-hw-');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const ID = '00000000-0000-4000-8000-0000000000a1';

function planWith(
  disks: Array<string | null>,
  nics: Array<string | null>,
  seed: string | null,
): LaunchPlan {
  const files = machineFiles({ machines: root } as Parameters<typeof machineFiles>[0], ID);
  mkdirSync(files.dir, { recursive: true });
  disks.forEach((_, i) =>
    execFileSync('qemu-img', ['create', '-q', '-f', 'qcow2', files.overlay(i), '1M']),
  );
  return {
    id: ID,
    hostname: 'hw',
    files,
    acceleration: 'tcg',
    sockets: 1,
    coresPerSocket: 1,
    memoryMiB: 64,
    disks: disks.map((controller, i) => ({ overlay: files.overlay(i), controller })),
    nics: nics.map((model, index) => ({
      index,
      mac: `52:54:00:00:00:0${index}`,
      model,
    })),
    iso: null,
    boot: null,
    guestSettings: [],
    seed,
  };
}

const after = (args: string[], flag: string) => args.filter((_, i) => args[i - 1] === flag);

describe('qemu hardware from the template', () => {
  it('maps adapters and controllers to QEMU devices', () => {
    expect(['e1000', 'E1000E', 'rtl8139', 'vmxnet3', 'virtio', null].map(nicModelOf)).toEqual([
      'e1000',
      'e1000e',
      'rtl8139',
      'virtio-net-pci',
      'virtio-net-pci',
      'virtio-net-pci',
    ]);
    expect(['ide', 'ATA', 'sata', 'ahci', 'lsilogic', 'virtio', null].map(diskBusOf)).toEqual([
      'ide',
      'ide',
      'sata',
      'sata',
      'virtio',
      'virtio',
      'virtio',
    ]);
  });

  it('puts SATA disks on one AHCI controller, IDE disks on the IDE buses, the rest on virtio', () => {
    const plan = planWith(['sata', 'ide', 'lsilogic', 'sata'], ['e1000', 'vmxnet3'], '/s.iso');
    const args = qemuArgs(plan);
    const { files } = plan;
    expect(after(args, '-device')).toEqual([
      'ahci,id=sata0',
      'ide-hd,drive=disk0,bus=sata0.0,id=sata-disk0',
      'ide-hd,drive=disk3,bus=sata0.1,id=sata-disk3',
      'ide-cd,drive=cd0,bus=ide.1,id=cdrom0',
      'ide-cd,drive=seed,bus=ide.1,id=seed0',
      'e1000,netdev=n0,mac=52:54:00:00:00:00,romfile=',
      'virtio-net-pci,netdev=n1,mac=52:54:00:00:00:01,romfile=',
      'vmgenid,guid=auto',
    ]);
    expect(after(args, '-drive').slice(0, 4)).toEqual([
      `if=none,id=disk0,file=${files.overlay(0)},format=qcow2`,
      `file=${files.overlay(1)},format=qcow2,if=ide,index=0`,
      `file=${files.overlay(2)},format=qcow2,if=virtio,index=2`,
      `if=none,id=disk3,file=${files.overlay(3)},format=qcow2`,
    ]);
  });

  it('gives the guest agent the second serial port and the MACs, and resumes a saved state', () => {
    const plan = planWith([], ['e1000', 'virtio'], null);
    const args = qemuArgs(plan);
    expect(after(args, '-serial')).toEqual([
      `unix:${plan.files.serial},server=on,wait=off`,
      `unix:${plan.files.agent},server=on,wait=off`,
    ]);
    expect(after(args, '-fw_cfg')).toContain(
      'name=opt/topoplay/macs,string=52:54:00:00:00:00 52:54:00:00:00:01',
    );
    expect(args).not.toContain('-incoming');
    const incoming = qemuArgs({ ...plan, incoming: "/s/warm/it's/memory.state" });
    expect(after(incoming, '-incoming')).toEqual([`exec:cat '/s/warm/it'\\''s/memory.state'`]);
  });

  it("skips the kernel's timer check under software emulation only", () => {
    const boot = { kernel: '/k', initrd: '/i', cmdline: 'console=ttyS0 panic=5' };
    const plan = { ...planWith([], [], null), boot };
    expect(after(qemuArgs(plan), '-append')).toEqual(['console=ttyS0 panic=5 no_timer_check']);
    expect(after(qemuArgs({ ...plan, acceleration: 'kvm' }), '-append')).toEqual([
      'console=ttyS0 panic=5',
    ]);
    expect(kernelCommandLine('quiet no_timer_check', 'tcg')).toBe('quiet no_timer_check');
    expect(kernelCommandLine('', 'tcg')).toBe('no_timer_check');
  });

  it("shares the clipboard through QEMU's vdagent only for images that have the agent", async () => {
    const plain = qemuArgs(planWith([null], [null], null));
    expect(plain.join(' ')).not.toMatch(/vdagent|virtio-serial|usb-tablet/);
    const plan = { ...planWith([null], [null], null), devices: ['vdagent'] as const };
    const args = qemuArgs(plan);
    expect(after(args, '-chardev')).toEqual(['qemu-vdagent,id=vdagent,name=vdagent,clipboard=on']);
    expect(after(args, '-device')).toEqual(
      expect.arrayContaining([
        'virtio-serial-pci',
        'virtserialport,chardev=vdagent,name=com.redhat.spice.0',
        'usb-tablet,bus=usb.0',
      ]),
    );
    // QEMU takes them: the vdagent chardev and the port the guest's spice-vdagentd opens.
    const pid = await launch(plan);
    try {
      const chardevs = await qmp<Array<{ label: string; filename: string }>>(
        plan.files.qmp,
        'query-chardev',
      );
      expect(chardevs.map((c) => c.label)).toContain('vdagent');
    } finally {
      await qmp(plan.files.qmp, 'quit').catch(() => undefined);
      await ended(pid, ID);
    }
  });

  it('leaves the seed out when a third IDE disk takes its unit', () => {
    const args = qemuArgs(planWith(['ide', 'ide', 'ide'], [], '/s.iso'));
    expect(args.join(' ')).not.toContain('id=seed0');
    expect(qemuArgs(planWith(['ide', 'ide'], [], '/s.iso')).join(' ')).toContain('id=seed0');
  });

  it('starts a machine with those devices', async () => {
    const seed = join(root, 'seed.iso');
    execFileSync('xorriso', ['-as', 'mkisofs', '-quiet', '-V', 'CIDATA', '-o', seed, root], {
      stdio: 'ignore',
    });
    const plan = planWith(['sata', 'ide', null], ['e1000e', 'e1000', null], seed);
    const pid = await launch(plan);
    try {
      const blocks = await qmp<Array<{ qdev?: string; device: string }>>(
        plan.files.qmp,
        'query-block',
      );
      const qdevs = blocks.map((b) => b.qdev ?? b.device);
      expect(qdevs).toEqual(expect.arrayContaining(['cdrom0', 'seed0', 'sata-disk0']));
      const pci = await qmp<Array<{ devices: Array<{ id: { device: number } }> }>>(
        plan.files.qmp,
        'query-pci',
      );
      const ids = pci.flatMap((bus) => bus.devices.map((d) => d.id.device));
      // Intel 82574L (e1000e), 82540EM (e1000) and virtio-net, by their PCI device ids.
      expect(ids).toEqual(expect.arrayContaining([0x10d3, 0x100e, 0x1000]));
    } finally {
      await qmp(plan.files.qmp, 'quit').catch(() => undefined);
      await ended(pid, ID);
    }
  });
});
