import { isAbsolute, join, normalize, relative, sep } from 'node:path';
import { DriverError } from '../types';

// Where the qemu driver keeps things. Disk paths in machine specs are relative to the images
// folder (`topoplay-tiny.qcow2` for a stock image, `{workspaceId}/web.qcow2` for a workspace's own
// disk); ISO paths are relative to the ISO folder. Each machine has a folder of its own under
// `{state}/machines/{id}` holding its record, its disk overlays and its sockets (monitor, VNC,
// serial, one per NIC); the switch keeps its table under `{state}/switch`.

export interface QemuLayout {
  images: string;
  isos: string;
  state: string;
  machines: string;
  switchDir: string;
}

/** Unix socket paths are limited to 107 bytes; the longest one a machine gets is this long. */
const LONGEST_SOCKET = '/machines/00000000-0000-0000-0000-000000000000/serial.sock'.length;
const SOCKET_PATH_MAX = 107;

export function layoutOf(folders: { images: string; isos: string; state: string }): QemuLayout {
  if (folders.state.length + LONGEST_SOCKET > SOCKET_PATH_MAX) {
    throw new Error(
      `The qemu driver's state folder ${folders.state} is too long for the machines' unix ` +
        `sockets (at most ${SOCKET_PATH_MAX - LONGEST_SOCKET} characters): set QEMU_STATE_DIR.`,
    );
  }
  return {
    ...folders,
    machines: join(folders.state, 'machines'),
    switchDir: join(folders.state, 'switch'),
  };
}

/**
 * A path inside `root` from a relative path a template or a change names, or a DriverError: an
 * absolute path, `..` or a NUL never leave the folder.
 */
export function inside(root: string, path: string, what: string): string {
  const cleaned = path.replace(/\\/g, '/').trim();
  if (!cleaned || cleaned.includes('\0') || isAbsolute(cleaned)) {
    throw new DriverError('invalid-request', `${what} ${path} is not a path inside its folder`);
  }
  const full = normalize(join(root, cleaned));
  const rel = relative(root, full);
  if (!rel || rel.startsWith('..') || isAbsolute(rel) || rel.split(sep).includes('..')) {
    throw new DriverError('invalid-request', `${what} ${path} is not a path inside its folder`);
  }
  return full;
}

export const machineDir = (layout: QemuLayout, id: string): string => join(layout.machines, id);

/** The files of one machine's folder. */
export const machineFiles = (layout: QemuLayout, id: string) => filesIn(machineDir(layout, id));

/** The files a machine's QEMU uses in `dir` (a machine's folder, or a warm image's build). */
export const filesIn = (dir: string) => {
  return {
    dir,
    record: join(dir, 'machine.json'),
    pid: join(dir, 'qemu.pid'),
    qmp: join(dir, 'qmp.sock'),
    vnc: join(dir, 'vnc.sock'),
    serial: join(dir, 'serial.sock'),
    agent: join(dir, 'agent.sock'),
    log: join(dir, 'qemu.log'),
    nic: (index: number) => join(dir, `nic${index}.sock`),
    overlay: (index: number) => join(dir, `disk${index}.qcow2`),
    guestSetting: (index: number) => join(dir, `guest${index}.txt`),
  };
};
