import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { tarMembers } from './ovaArchive';
import { createDiskImageStore, importedName, type TemplatesWithDetail } from './diskImages';

// Disk image imports with the real qemu-img: test inputs are made from one tiny raw disk with
// qemu-img itself (qcow2, vmdk, vdi), an OVA with a tar header written here, and bad inputs: a
// qcow2 over a backing file, a truncated one, a vmdk whose extent is another file, forged OVAs.

const qemuImg = (...args: string[]) => execFileSync('qemu-img', args, { stdio: 'pipe' });

let work: string;
let inputs: string;
const MiB = 1024 * 1024;

/** A ustar header for a member of `size` bytes named `name` (checksum included). */
function tarHeader(name: string, size: number): Buffer {
  const h = Buffer.alloc(512);
  h.write(name, 0, 100, 'utf8');
  h.write('0000644\0', 100);
  h.write('0000000\0', 108);
  h.write('0000000\0', 116);
  h.write(`${size.toString(8).padStart(11, '0')}\0`, 124);
  h.write('00000000000\0', 136);
  h.write('        ', 148);
  h.write('0', 156);
  h.write('ustar\0', 257);
  h.write('00', 263);
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  return h;
}

/** A tar of the given members, padded as tar pads them. */
function tar(members: Array<{ name: string; data: Buffer; declared?: number }>): Buffer {
  const parts: Buffer[] = [];
  for (const m of members) {
    parts.push(tarHeader(m.name, m.declared ?? m.data.length), m.data);
    parts.push(Buffer.alloc((512 - (m.data.length % 512)) % 512));
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'topoplay-diskimages-'));
  inputs = join(work, 'inputs');
  execFileSync('mkdir', ['-p', inputs]);
  const raw = join(inputs, 'base.raw');
  qemuImg('create', '-q', '-f', 'raw', raw, '4M');
  writeFileSync(raw, Buffer.from('topoplay disk image test'), { flag: 'r+' });
  for (const format of ['qcow2', 'vmdk', 'vdi']) {
    qemuImg('convert', '-f', 'raw', '-O', format, raw, join(inputs, `base.${format}`));
  }
  qemuImg(
    'create',
    '-q',
    '-f',
    'qcow2',
    '-F',
    'qcow2',
    '-b',
    join(inputs, 'base.qcow2'),
    join(inputs, 'over.qcow2'),
  );
  writeFileSync(
    join(inputs, 'trunc.qcow2'),
    readFileSync(join(inputs, 'base.qcow2')).subarray(0, 100_000),
  );
  writeFileSync(
    join(inputs, 'evil.vmdk'),
    '# Disk DescriptorFile\nversion=1\nCID=fffffffe\nparentCID=ffffffff\n' +
      'createType="monolithicFlat"\nRW 8 FLAT "/etc/hostname" 0\n',
  );
  // What OVAs usually hold: a compressed, stream-optimized vmdk.
  qemuImg(
    'convert',
    '-f',
    'raw',
    '-O',
    'vmdk',
    '-o',
    'subformat=streamOptimized',
    raw,
    join(inputs, 'stream.vmdk'),
  );
  const vmdk = readFileSync(join(inputs, 'base.vmdk'));
  const ovf = Buffer.from('<?xml version="1.0"?><Envelope/>');
  writeFileSync(
    join(inputs, 'base.ova'),
    tar([
      { name: 'base.ovf', data: ovf },
      { name: 'base-disk1.vmdk', data: vmdk },
    ]),
  );
  writeFileSync(
    join(inputs, 'stream.ova'),
    tar([
      { name: 'appliance.ovf', data: ovf },
      { name: 'appliance.mf', data: Buffer.from('SHA256(x)= 0\n') },
      { name: 'appliance-disk1.vmdk', data: readFileSync(join(inputs, 'stream.vmdk')) },
    ]),
  );
  // Declares a 4 GiB member in a file of a few kilobytes.
  writeFileSync(
    join(inputs, 'bomb.ova'),
    tar([{ name: 'huge.vmdk', data: Buffer.alloc(512), declared: 4 * 1024 ** 3 }]),
  );
  writeFileSync(join(inputs, 'escape.ova'), tar([{ name: '../../etc/evil.vmdk', data: vmdk }]));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

function store(templates: TemplatesWithDetail = async () => [], free = 1024 ** 4) {
  const imagesDir = mkdtempSync(join(work, 'images-'));
  const diskImages = createDiskImageStore({
    imagesDir,
    maxBytes: 256 * MiB,
    minFreeBytes: 100 * MiB,
    templates,
    freeBytes: async () => free,
  });
  return { imagesDir, diskImages };
}

/** Uploads the file in chunks of `chunk` bytes and completes it. */
async function importFile(
  diskImages: ReturnType<typeof store>['diskImages'],
  path: string,
  name: string,
  chunk = 64 * 1024,
) {
  const data = readFileSync(path);
  const upload = await diskImages.start({ name, size: data.length });
  for (let at = 0; at < data.length; at += chunk) {
    await diskImages.writeChunk(upload.id, at, Readable.from([data.subarray(at, at + chunk)]));
  }
  return diskImages.complete(upload.id);
}

const leftovers = (dir: string) => readdirSync(dir).filter((n) => n.startsWith('.'));
const formatOf = (path: string) =>
  (JSON.parse(qemuImg('info', '--output=json', path).toString()) as { format: string }).format;

describe('disk image import', () => {
  it.each([
    ['base.qcow2', 'a.qcow2'],
    ['base.raw', 'b.raw'],
    ['base.raw', 'c.img'],
    ['base.vmdk', 'd.vmdk'],
    ['base.vdi', 'e.vdi'],
    ['base.ova', 'f.ova'],
    ['stream.ova', 'g.ova'],
  ])('imports %s uploaded as %s as a standalone qcow2', async (input, name) => {
    const { imagesDir, diskImages } = store();
    const image = await importFile(diskImages, join(inputs, input), name);
    const stored = `${name.slice(0, name.lastIndexOf('.'))}.qcow2`;
    expect(image).toMatchObject({ name: stored, virtualSize: 4 * MiB, templates: [] });
    expect(formatOf(join(imagesDir, stored))).toBe('qcow2');
    // The data survived the conversion.
    const raw = join(work, `${name}.check.raw`);
    qemuImg('convert', '-f', 'qcow2', '-O', 'raw', join(imagesDir, stored), raw);
    expect(readFileSync(raw).subarray(0, 24).toString()).toBe('topoplay disk image test');
    expect(leftovers(imagesDir)).toEqual([]);
    expect((await diskImages.list()).map((i) => i.name)).toEqual([stored]);
  });

  it.each([
    ['over.qcow2', 'over.qcow2', /has a backing file \(.*base\.qcow2\)/],
    ['trunc.qcow2', 'trunc.qcow2', /qemu-img check found errors/],
    ['evil.vmdk', 'evil.vmdk', /reads its data from another file \(\/etc\/hostname\)/],
    ['base.raw', 'raw.qcow2', /not a qcow2 image: qemu-img reads it as raw/],
    [
      'bomb.ova',
      'bomb.ova',
      /huge\.vmdk declares 4294967296 bytes, more than the limit of 268435456/,
    ],
    ['escape.ova', 'escape.ova', /member name "\.\.\/\.\.\/etc\/evil\.vmdk" leaves its folder/],
    ['base.qcow2', 'notova.ova', /not a tar archive/],
  ])('refuses %s uploaded as %s and leaves nothing behind', async (input, name, why) => {
    const { imagesDir, diskImages } = store();
    await expect(importFile(diskImages, join(inputs, input), name)).rejects.toThrow(why);
    expect(readdirSync(imagesDir)).toEqual([]);
  });

  it('refuses a truncated vmdk, stream-optimized vmdk and vdi', async () => {
    for (const [input, format] of [
      ['base.vmdk', 'vmdk'],
      ['base.vdi', 'vdi'],
      ['stream.vmdk', 'vmdk'],
    ] as const) {
      const data = readFileSync(join(inputs, input));
      const cut = join(work, `cut-${input}`);
      // Cut in half: some of its data did not arrive.
      writeFileSync(cut, data.subarray(0, data.length / 2));
      const { imagesDir, diskImages } = store();
      await expect(importFile(diskImages, cut, `cut.${format}`)).rejects.toThrow(
        /truncated|check found errors|cannot|could not convert/,
      );
      expect(readdirSync(imagesDir)).toEqual([]);
    }
  });

  it('refuses unsafe and unknown names before anything is written', async () => {
    const { imagesDir, diskImages } = store();
    for (const name of ['../x.qcow2', '.hidden.qcow2', 'a b.qcow2', 'x..qcow2', '']) {
      await expect(diskImages.start({ name, size: 10 })).rejects.toThrow(/not a safe file name/);
    }
    await expect(diskImages.start({ name: 'disk.iso', size: 10 })).rejects.toThrow(
      /not a disk image this server imports: qcow2, raw, vmdk, vdi or ova/,
    );
    expect(() => importedName('My-disk_1.vmdk')).not.toThrow();
    expect(readdirSync(imagesDir)).toEqual([]);
  });

  it('refuses a size that would leave too little free space, and one over the limit', async () => {
    const { diskImages } = store(async () => [], 150 * MiB);
    await expect(diskImages.start({ name: 'big.qcow2', size: 30 * MiB })).rejects.toThrow(
      /not enough free disk space.*62,914,560 bytes would leave less than the 104,857,600/,
    );
    await expect(diskImages.start({ name: 'big.qcow2', size: 300 * MiB })).rejects.toThrow(
      /larger than the limit of 268,435,456 bytes/,
    );
  });

  it('writes chunks at their offsets only, and resumes from the bytes received', async () => {
    const { imagesDir, diskImages } = store();
    const data = readFileSync(join(inputs, 'base.qcow2'));
    const upload = await diskImages.start({ name: 'resumed.qcow2', size: data.length });
    await diskImages.writeChunk(upload.id, 0, Readable.from([data.subarray(0, 1000)]));
    await expect(
      diskImages.writeChunk(upload.id, 2000, Readable.from([data.subarray(2000, 3000)])),
    ).rejects.toThrow(/starts at byte 2000, but the upload has 1000 bytes: .*offset 1000/);
    // A chunk cut off halfway keeps what arrived; the client asks and goes on from there.
    const cut = new Readable({ read() {} });
    const writing = diskImages.writeChunk(upload.id, 1000, cut);
    cut.push(data.subarray(1000, 1500));
    await vi.waitFor(async () => expect((await diskImages.status(upload.id)).received).toBe(1500));
    cut.destroy(new Error('connection reset'));
    await expect(writing).rejects.toThrow(/connection reset/);
    const { received } = await diskImages.status(upload.id);
    expect(received).toBe(1500);
    await expect(diskImages.complete(upload.id)).rejects.toThrow(/has 1,500 bytes of/);
    // A refused completion drops the upload.
    await expect(diskImages.status(upload.id)).rejects.toThrow(/ResourceNotFound/);
    expect(leftovers(imagesDir)).toEqual([]);
  });

  it('refuses a second chunk while one is being written', async () => {
    const { diskImages } = store();
    const upload = await diskImages.start({ name: 'busy.raw', size: 1024 });
    const slow = new Readable({ read() {} });
    const writing = diskImages.writeChunk(upload.id, 0, slow);
    slow.push(Buffer.alloc(100));
    await vi.waitFor(async () => expect((await diskImages.status(upload.id)).received).toBe(100));
    await expect(
      diskImages.writeChunk(upload.id, 100, Readable.from([Buffer.alloc(100)])),
    ).rejects.toThrow(/Another chunk of this upload is being written/);
    await expect(diskImages.complete(upload.id)).rejects.toThrow(/Another chunk/);
    slow.push(null);
    expect((await writing).received).toBe(100);
    const next = await diskImages.writeChunk(upload.id, 100, Readable.from([Buffer.alloc(100)]));
    expect(next.received).toBe(200);
  });

  it('refuses a chunk past the declared size', async () => {
    const { diskImages } = store();
    const upload = await diskImages.start({ name: 'small.raw', size: 10 });
    await expect(
      diskImages.writeChunk(upload.id, 0, Readable.from([Buffer.alloc(20)])),
    ).rejects.toThrow(/larger than 10 bytes/);
  });

  it('lists templates using an image and refuses to delete it while they do', async () => {
    let detail = JSON.stringify({ Disks: [{ Path: 'used.qcow2', Source: '' }] });
    const templates: TemplatesWithDetail = async () => [
      { id: 't1', name: 'web', workspaceName: 'Lab', detail },
    ];
    const { imagesDir, diskImages } = store(templates);
    await importFile(diskImages, join(inputs, 'base.qcow2'), 'used.qcow2');
    const [listed] = await diskImages.list();
    expect(listed).toMatchObject({
      name: 'used.qcow2',
      templates: [{ id: 't1', name: 'web', workspaceName: 'Lab' }],
    });
    expect(listed?.size).toBeGreaterThan(0);
    await expect(diskImages.remove('used.qcow2')).rejects.toThrow(
      /used\.qcow2 is in use by the template web \(Lab\)/,
    );
    await expect(importFile(diskImages, join(inputs, 'base.qcow2'), 'used.qcow2')).rejects.toThrow(
      /already an image named used\.qcow2/,
    );
    detail = JSON.stringify({ Disks: [{ Path: 'other.qcow2' }] });
    expect(await diskImages.remove('used.qcow2')).toBe(true);
    expect(await diskImages.remove('used.qcow2')).toBe(false);
    expect(await diskImages.remove('../etc/passwd')).toBe(false);
    expect(readdirSync(imagesDir)).toEqual([]);
  });

  it('lists an image linked into the folder from elsewhere, and no dangling link', async () => {
    const { imagesDir, diskImages } = store();
    const kept = join(work, 'kept-elsewhere.qcow2');
    copyFileSync(join(inputs, 'base.qcow2'), kept);
    symlinkSync(kept, join(imagesDir, 'linked.qcow2'));
    symlinkSync(join(work, 'no-such-file.qcow2'), join(imagesDir, 'dangling.qcow2'));
    const listed = await diskImages.list();
    expect(listed.map((i) => i.name)).toEqual(['linked.qcow2']);
    expect(listed[0]).toMatchObject({ virtualSize: 4 * MiB, templates: [] });
    // Deleting it removes the link, never the file it points to.
    expect(await diskImages.remove('linked.qcow2')).toBe(true);
    expect(existsSync(kept)).toBe(true);
    expect(readdirSync(imagesDir)).toEqual(['dangling.qcow2']);
  });

  it('removes uploads left without a chunk for a day, and abandons one on request', async () => {
    const { imagesDir, diskImages } = store();
    const kept = await diskImages.start({ name: 'kept.raw', size: 10 });
    expect(await diskImages.removeStale()).toBe(0);
    expect(await diskImages.removeStale(-1)).toBe(1);
    await expect(diskImages.status(kept.id)).rejects.toThrow(/ResourceNotFound/);
    const gone = await diskImages.start({ name: 'gone.raw', size: 10 });
    expect(await diskImages.abandon(gone.id)).toBe(true);
    expect(await diskImages.abandon(gone.id)).toBe(false);
    expect(readdirSync(imagesDir)).toEqual([]);
  });

  it('reads tar headers without extracting: names, sizes, offsets', async () => {
    const members = await tarMembers(join(inputs, 'base.ova'), MiB);
    expect(members.map((m) => [m.name, m.offset])).toEqual([
      ['base.ovf', 512],
      ['base-disk1.vmdk', 1536],
    ]);
  });
});
