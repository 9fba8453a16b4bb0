import { createHash, randomBytes } from 'node:crypto';
import { diskBytes, disksOf, DISK_STORAGE, ISO_STORAGE, volumeOf } from './config';
import { failure, intParam, paramError, PveHttpError, textParam } from './errors';
import type { IsoFile } from './isos';
import type { TaskSpec } from './tasks';
import { nodeOf, type Call, type Routes, type SimContext } from './types';

// The storages of the PVE API SIMULATOR's nodes (tests only) and their endpoints: status, content,
// uploads of ISO images and of disk images to import (content `import`, PVE 8's import folder,
// what `import-from` on disk creation reads) and volume deletes. Behaviour follows proxmox/pve-storage (API2/Storage/Status.pm
// and Content.pm): an upload is a worker task on the node that took the request (`imgcopy`),
// which copies the file to the target node and only then lists it there; a delete is an `imgdel`
// task on the volume's node, which ends OK (with a line in its log) when the file is not there.

interface StorageInfo {
  /** PVE's storage type (plugin). */
  type: string;
  content: string;
  shared: boolean;
  total: number;
  /** The directory of a file-based storage; null: no file system, so no uploads. */
  path: string | null;
}

/** Every simulated node has both storages, as a default PVE installation does. */
export const STORAGES: Record<string, StorageInfo> = {
  [ISO_STORAGE]: {
    type: 'dir',
    content: 'iso,vztmpl,backup,import',
    shared: false,
    total: 100 * 2 ** 30,
    path: '/var/lib/vz',
  },
  // The simulated disk storage counts as shared, so clones may go to any node.
  [DISK_STORAGE]: {
    type: 'lvmthin',
    content: 'images,rootdir',
    shared: true,
    total: 2 * 2 ** 40,
    path: null,
  },
};

const storageOf = (id: string): StorageInfo | undefined =>
  Object.hasOwn(STORAGES, id) ? STORAGES[id] : undefined;

/** PVE's ISO_EXT_RE_0 at the end of a file name: .iso or .img, in any case. */
const ISO_FILE = /^[^/]+\.(?:iso|img)$/i;

/**
 * What PVE takes as a disk image upload to `import` content: its SAFE_CHAR_CLASS_RE and
 * UPLOAD_IMPORT_EXT_RE_1 (ova, qcow2, raw, vmdk; case matters).
 */
export const IMPORT_FILE = /^[a-zA-Z0-9\-.+=_]+\.(ova|qcow2|raw|vmdk)$/;

/** The content type of a volume on the directory storage: `iso/...` or `import/...`. */
export const contentOfVolid = (volid: string): string =>
  /^[^:]+:import\//.test(volid) ? 'import' : 'iso';

/** PVE's volume ID syntax: `storage:name`. */
const VOLUME_ID = /^([a-z][a-z0-9._-]*[a-z0-9]):(.+)$/i;

/** PVE's normalize_content_filename: the last path component, anything but [A-Za-z0-9_.-] as '_'. */
const normalizedName = (name: string): string =>
  name
    .replace(/\n$/, '')
    .replace(/^.*[/\\]/, '')
    .replace(/[^a-zA-Z0-9_.-]/g, '_');

const isoPath = (storage: StorageInfo, name: string): string =>
  `${storage.path ?? ''}/template/iso/${name}`;

/** Bytes in use: the node's images on the ISO storage; every VM disk on the shared one. */
function usedBytes(ctx: SimContext, storage: string, node: string): number {
  if (storage === ISO_STORAGE) {
    return ctx.cluster.isos.list(node).reduce((sum, file) => sum + file.size, 0);
  }
  return [...ctx.cluster.vms.values()]
    .flatMap((vm) => disksOf(vm.config))
    .reduce((sum, [, value]) => sum + diskBytes(value), 0);
}

function status(ctx: SimContext, call: Call) {
  const node = nodeOf(call);
  ctx.cluster.node(node);
  const id = call.pathParams.storage ?? '';
  const storage = storageOf(id);
  if (!storage) throw paramError({ storage: 'No such storage.' });
  const used = usedBytes(ctx, id, node);
  return {
    type: storage.type,
    content: storage.content,
    shared: storage.shared ? 1 : 0,
    active: 1,
    enabled: 1,
    total: storage.total,
    used,
    avail: storage.total - used,
  };
}

function content(ctx: SimContext, call: Call) {
  const node = nodeOf(call);
  ctx.cluster.node(node);
  const storage = call.pathParams.storage ?? '';
  const wanted = textParam(call.params, 'content');
  if (storage === ISO_STORAGE) {
    return ctx.cluster.isos
      .list(node)
      .map((file) => ({ file, kind: contentOfVolid(file.volid) }))
      .filter(({ kind }) => wanted === undefined || wanted === kind)
      .map(({ file, kind }) => ({
        volid: file.volid,
        content: kind,
        format:
          kind === 'iso'
            ? 'iso'
            : (IMPORT_FILE.exec(file.volid.slice(file.volid.indexOf('/') + 1))?.[1] ?? 'raw'),
        size: file.size,
        ctime: file.ctime,
      }));
  }
  if (storage === DISK_STORAGE) {
    if (wanted !== undefined && wanted !== 'images') return [];
    return [...ctx.cluster.vms.values()].flatMap((vm) =>
      disksOf(vm.config).map(([, value]) => ({
        volid: volumeOf(value),
        content: 'images',
        format: 'raw',
        size: diskBytes(value),
        vmid: vm.vmid,
      })),
    );
  }
  throw failure(`storage '${storage}' does not exist`);
}

/** The worker's checksum step: a mismatch fails the task before anything is copied. */
function verifyChecksum(call: Call, data: Buffer, log: (line: string) => void): void {
  const algorithm = textParam(call.params, 'checksum-algorithm');
  const expected = textParam(call.params, 'checksum');
  if (algorithm === undefined || expected === undefined) return;
  const got = createHash(algorithm).update(data).digest('hex');
  if (got === expected.toLowerCase()) {
    log('calculating checksum...OK, checksum verified');
    return;
  }
  log('calculating checksum...');
  throw new Error(`checksum mismatch: got '${got}' != expect '${expected}'`);
}

/** The storage an upload goes to, the stored file's volume and path, after PVE's checks. */
function uploadTarget(call: Call): { volid: string; target: string } {
  const id = call.pathParams.storage ?? '';
  const storage = storageOf(id);
  if (!storage) throw failure(`storage '${id}' does not exist`);
  if (storage.path === null) throw failure(`can't upload to storage type '${storage.type}'`);
  const kind = textParam(call.params, 'content') ?? '';
  if (kind !== 'iso' && kind !== 'import') {
    throw new PveHttpError(
      501,
      `the PVE API simulator takes only iso and import uploads, not '${kind}'`,
    );
  }
  // PVE refuses content the storage is not configured for (an admin enables `import` on it).
  if (!storage.content.split(',').includes(kind)) {
    throw failure(`storage '${id}' is not configured for content-type '${kind}'`);
  }
  const name = normalizedName(textParam(call.params, 'filename') ?? '');
  if (kind === 'iso') {
    if (!ISO_FILE.test(name)) throw paramError({ filename: 'wrong file extension' });
    return { volid: `${id}:iso/${name}`, target: isoPath(storage, name) };
  }
  if (!IMPORT_FILE.test(name)) {
    throw paramError({ filename: 'invalid filename or wrong extension' });
  }
  return { volid: `${id}:import/${name}`, target: `${storage.path ?? ''}/import/${name}` };
}

function upload(ctx: SimContext, call: Call): string {
  const node = nodeOf(call);
  ctx.cluster.node(node);
  const { volid, target } = uploadTarget(call);
  const data = call.file ?? Buffer.alloc(0);
  const file: Omit<IsoFile, 'ctime'> = {
    volid,
    size: data.length,
    sha256: createHash('sha256').update(data).digest('hex'),
  };
  const temporary = `/var/tmp/pveupload-${randomBytes(16).toString('hex')}`;
  // PVE copies with cp on its own node and with scp to another one.
  const command =
    node === ctx.apiNode
      ? `cp -- ${temporary} ${target}`
      : `/usr/bin/scp -p -- ${temporary} [${node}]:${target}`;
  return ctx.tasks.start({
    node: ctx.apiNode,
    type: 'imgcopy',
    id: '',
    user: call.session.user,
    durationMs: ctx.settings.taskMs,
    begin: (log) => log(`starting file import from: ${temporary}`),
    finish: (log) => {
      verifyChecksum(call, data, log);
      for (const line of [`target node: ${node}`, `target file: ${target}`]) log(line);
      log(`file size is: ${data.length}`);
      log(`command: ${command}`);
      // An existing file of that name is overwritten, as PVE does.
      ctx.cluster.isos.put(node, { ...file, ctime: Math.floor(Date.now() / 1000) });
      log('finished file import successfully');
    },
  }).upid;
}

/** PVE's real_volume_id: a full volume ID, or a name on the path's storage. */
function volumeIdOf(call: Call): { volid: string; storage: string; volname: string } {
  const pathStorage = call.pathParams.storage ?? '';
  const volume = call.pathParams.volume ?? '';
  if (!volume.includes(':')) {
    return { volid: `${pathStorage}:${volume}`, storage: pathStorage, volname: volume };
  }
  const match = VOLUME_ID.exec(volume);
  if (!match) throw paramError({ volume: `unable to parse volume ID '${volume}'` });
  const [, storage = '', volname = ''] = match;
  if (pathStorage !== '' && storage !== pathStorage) {
    throw paramError({ volume: `storage ID mismatch (${storage} != ${pathStorage})` });
  }
  return { volid: volume, storage, volname };
}

/** Starts a task and tells when it has ended, however it ended. */
function startTask(ctx: SimContext, spec: TaskSpec): { upid: string; ended: Promise<void> } {
  let upid = '';
  const ended = new Promise<void>((resolve) => {
    upid = ctx.tasks.start({ ...spec, always: resolve }).upid;
  });
  return { upid, ended };
}

/** Resolves once the task ends or `ms` passed: true when it ended. */
function endedWithin(ctx: SimContext, ended: Promise<void>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const cancel = ctx.timers.after(ms, () => resolve(false));
    void ended.then(() => {
      cancel();
      resolve(true);
    });
  });
}

interface IsoVolume {
  volid: string;
  /** The storage's ID, and what it is. */
  id: string;
  storage: StorageInfo;
  /** The file's path on the node. */
  path: string;
}

/** The ISO image a delete names, after PVE's checks of the volume ID and its storage. */
function isoVolumeOf(call: Call): IsoVolume {
  const { volid, storage: id, volname } = volumeIdOf(call);
  const storage = storageOf(id);
  if (!storage) throw failure(`storage '${id}' does not exist`);
  if (storage.path === null) {
    throw new PveHttpError(501, 'the PVE API simulator deletes only volumes of the ISO storage');
  }
  // PVE parses any directory volume name (images, backups, templates...); the simulator keeps
  // only ISO images and images to import, so it knows only their names.
  const [, kind, name = ''] = /^(iso|import)\/([^/]+)$/.exec(volname) ?? [];
  if (kind === undefined || !(kind === 'iso' ? ISO_FILE : IMPORT_FILE).test(name)) {
    throw failure(`unable to parse directory volume name '${volname}'`);
  }
  const path = kind === 'iso' ? isoPath(storage, name) : `${storage.path ?? ''}/import/${name}`;
  return { volid, id, storage, path };
}

async function deleteVolume(ctx: SimContext, call: Call): Promise<string | null> {
  const node = nodeOf(call);
  ctx.cluster.node(node);
  const { volid, id, path } = isoVolumeOf(call);
  const { upid, ended } = startTask(ctx, {
    node,
    type: 'imgdel',
    id,
    user: call.session.user,
    durationMs: ctx.settings.taskMs,
    finish: (log) => {
      if (!ctx.cluster.isos.remove(node, volid)) {
        // PVE only warns (into the task log) and reports the volume removed all the same.
        log(`disk image '${path}' does not exist`);
      }
      log(`Removed volume '${volid}'`);
    },
  });
  const delay = intParam(call.params, 'delay');
  if (delay === undefined || !(await endedWithin(ctx, ended, delay * 1000))) return upid;
  const exit = ctx.tasks.get(upid)?.exitstatus ?? 'OK';
  if (exit !== 'OK') throw failure(exit);
  return null;
}

export function storageRoutes(ctx: SimContext): Routes {
  return {
    'GET /nodes/{node}/storage/{storage}/status': (call) => status(ctx, call),
    'GET /nodes/{node}/storage/{storage}/content': (call) => content(ctx, call),
    'POST /nodes/{node}/storage/{storage}/upload': (call) => upload(ctx, call),
    'DELETE /nodes/{node}/storage/{storage}/content/{volume}': (call) => deleteVolume(ctx, call),
  };
}
