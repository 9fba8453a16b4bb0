import { execFile } from 'node:child_process';
import { open, stat } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { DomainError } from './errors';

// What an uploaded disk image must pass before it joins the images folder, through qemu-img:
// its format is the one its name says, it stands alone (no backing file, no external data file,
// no extent in another file: any of those would let a conversion read a file of the server), and
// none of its data lies past its end (a truncated upload). An OVA is a tar: its first .vmdk is
// cut out of it by its header, without a tar tool, after every member's header was checked.

/** The formats an upload may have, by its name's extension; an OVA holds a vmdk. */
export const FORMAT_OF_EXTENSION: Readonly<Record<string, SourceFormat>> = {
  qcow2: 'qcow2',
  raw: 'raw',
  img: 'raw',
  vmdk: 'vmdk',
  vdi: 'vdi',
  ova: 'vmdk',
};

export type SourceFormat = 'qcow2' | 'raw' | 'vmdk' | 'vdi';

/** An OVA with more members than this is refused: real ones have a handful. */
export const OVA_MAX_MEMBERS = 64;

const TAR_BLOCK = 512;

export const refused = (why: string) => new DomainError('InvalidOperation', why);

/** What `qemu-img info --output=json` says, in the parts read here. */
interface ImageInfo {
  format?: string;
  'virtual-size'?: number;
  'backing-filename'?: string;
  'full-backing-filename'?: string;
  'format-specific'?: {
    type?: string;
    data?: { 'data-file'?: string; extents?: Array<{ filename?: string }> };
  };
}

export interface CheckedImage {
  format: SourceFormat;
  virtualSize: number;
}

export interface QemuImg {
  /** The qemu-img command; 'qemu-img' on the PATH unless given. */
  command?: string;
}

/** Runs qemu-img; rejects with its message (stderr) when it fails or is missing. */
export function qemuImg(
  args: string[],
  options: QemuImg & { timeoutMs?: number } = {},
): Promise<string> {
  const command = options.command ?? 'qemu-img';
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      { timeout: options.timeoutMs ?? 60_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (!error) return resolve(stdout);
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
          return reject(
            refused('Importing disk images needs qemu-img (qemu-utils) on the server.'),
          );
        }
        const why = (stderr || error.message).trim().replace(/^qemu-img: /, '');
        reject(Object.assign(new Error(why), { exitCode: (error as { code?: unknown }).code }));
      },
    );
  });
}

const firstLine = (error: unknown) =>
  (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';

/**
 * Checks the image at `path`, which its name says is `expected`: refused (InvalidOperation, with
 * the reason) unless qemu-img reads it as that format, it has no backing file, no external data
 * file and no extent outside itself, its virtual size is at most `maxVirtualBytes`, `qemu-img
 * check` finds no error and no allocated data lies past the end of the file.
 */
export async function checkImage(
  path: string,
  expected: SourceFormat,
  maxVirtualBytes: number,
  tool: QemuImg = {},
): Promise<CheckedImage> {
  let info: ImageInfo;
  try {
    // Probed, not told: a file that is not the format its name says is refused below, rather
    // than read as that format.
    info = JSON.parse(await qemuImg(['info', '--output=json', path], tool)) as ImageInfo;
  } catch (error) {
    if (error instanceof DomainError) throw error;
    throw refused(`qemu-img cannot read the image: ${firstLine(error)}`);
  }
  if (info.format !== expected) {
    throw refused(
      `The file is not a ${expected} image: qemu-img reads it as ${info.format ?? 'unknown'}.`,
    );
  }
  if (info['backing-filename'] || info['full-backing-filename']) {
    throw refused(
      `The image has a backing file (${info['backing-filename'] ?? info['full-backing-filename']}): ` +
        'only standalone images can be imported; convert it with qemu-img convert first.',
    );
  }
  const specific = info['format-specific']?.data;
  if (specific?.['data-file']) {
    throw refused('The image keeps its data in an external data file: it cannot be imported.');
  }
  const foreign = (specific?.extents ?? []).find((e) => e.filename && e.filename !== path);
  if (foreign) {
    throw refused(
      `The image reads its data from another file (${foreign.filename}): it cannot be imported.`,
    );
  }
  const virtualSize = info['virtual-size'] ?? 0;
  if (!(virtualSize > 0)) throw refused('The image has no virtual size.');
  if (virtualSize > maxVirtualBytes) {
    throw refused(
      `The image's virtual size (${virtualSize} bytes) is larger than ${maxVirtualBytes} bytes.`,
    );
  }
  if (expected !== 'raw') {
    try {
      await qemuImg(['check', '-f', expected, path], { ...tool, timeoutMs: 30 * 60_000 });
    } catch (error) {
      if (error instanceof DomainError) throw error;
      throw refused(`qemu-img check found errors in the image: ${firstLine(error)}`);
    }
    await assertDataInside(path, expected, tool);
  }
  return { format: expected, virtualSize };
}

/** Refuses an image whose map places data beyond the end of its file (a cut-off upload). */
async function assertDataInside(path: string, format: SourceFormat, tool: QemuImg) {
  const fileSize = (await stat(path)).size;
  let map: Array<{ data?: boolean; offset?: number; length?: number }>;
  try {
    map = JSON.parse(
      await qemuImg(['map', '-f', format, '--output=json', path], {
        ...tool,
        timeoutMs: 30 * 60_000,
      }),
    ) as typeof map;
  } catch (error) {
    throw refused(`qemu-img cannot map the image: ${firstLine(error)}`);
  }
  const past = map.find(
    (m) => m.data && typeof m.offset === 'number' && m.offset + (m.length ?? 0) > fileSize,
  );
  if (past) {
    throw refused('The image is truncated: some of its data lies past the end of the file.');
  }
}

/** Converts a checked image into a standalone qcow2 at `target`. */
export async function convertToQcow2(
  source: string,
  format: SourceFormat,
  target: string,
  tool: QemuImg = {},
): Promise<void> {
  try {
    await qemuImg(['convert', '-q', '-f', format, '-O', 'qcow2', source, target], {
      ...tool,
      timeoutMs: 6 * 3_600_000,
    });
    await qemuImg(['check', '-q', '-f', 'qcow2', target], { ...tool, timeoutMs: 30 * 60_000 });
  } catch (error) {
    if (error instanceof DomainError) throw error;
    throw refused(`qemu-img could not convert the image: ${firstLine(error)}`);
  }
}

/** One member of a tar, as its header says. */
export interface TarMember {
  name: string;
  size: number;
  /** Where its data starts in the tar. */
  offset: number;
  /** '0' (or NUL) a file; '5' a folder; others are links and extensions. */
  type: string;
}

const text = (block: Buffer, from: number, length: number) => {
  const raw = block.subarray(from, from + length);
  const end = raw.indexOf(0);
  return raw.subarray(0, end < 0 ? raw.length : end).toString('utf8');
};

function octal(block: Buffer, from: number, length: number): number {
  // GNU base-256, for sizes past 8 GiB: the high bit of the first byte set, then big-endian.
  if (((block[from] ?? 0) & 0x80) !== 0) {
    let n = (block[from] ?? 0) & 0x7f;
    for (let i = from + 1; i < from + length; i++) n = n * 256 + (block[i] ?? 0);
    return n;
  }
  const value = text(block, from, length).trim();
  if (!/^[0-7]*$/.test(value)) throw refused('The OVA is not a tar archive.');
  return value === '' ? 0 : Number.parseInt(value, 8);
}

/** A header's checksum: the sum of its bytes with the checksum field read as spaces. */
function checksumMatches(block: Buffer): boolean {
  let sum = 0;
  for (let i = 0; i < TAR_BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : (block[i] ?? 0);
  return sum === octal(block, 148, 8);
}

/** A member name that cannot leave a folder it is extracted into. */
const isSafeMemberName = (name: string) =>
  name !== '' &&
  !name.startsWith('/') &&
  !name.includes('\\') &&
  !name.includes('\0') &&
  !name.split('/').includes('..');

/**
 * The members of the tar at `path`, read from their headers alone: refused when it is not a
 * tar, has more than OVA_MAX_MEMBERS members, names a path that leaves its folder, or declares
 * a member larger than `maxMemberBytes` or reaching past the end of the file (a forged size).
 */
export async function tarMembers(path: string, maxMemberBytes: number): Promise<TarMember[]> {
  const handle = await open(path, 'r');
  try {
    const { size: fileSize } = await handle.stat();
    const members: TarMember[] = [];
    const block = Buffer.alloc(TAR_BLOCK);
    let at = 0;
    let longName: string | null = null;
    let paxSize: number | null = null;
    while (at + TAR_BLOCK <= fileSize) {
      await handle.read(block, 0, TAR_BLOCK, at);
      if (block.every((b) => b === 0)) break;
      if (!checksumMatches(block)) throw refused('The OVA is not a tar archive.');
      const size = paxSize ?? octal(block, 124, 12);
      paxSize = null;
      const type = String.fromCharCode(block[156] ?? 0);
      const prefix =
        block.subarray(257, 262).toString('latin1') === 'ustar' ? text(block, 345, 155) : '';
      const name = longName ?? (prefix ? `${prefix}/${text(block, 0, 100)}` : text(block, 0, 100));
      longName = null;
      const offset = at + TAR_BLOCK;
      if (size > maxMemberBytes) {
        throw refused(
          `The OVA member ${name} declares ${size} bytes, more than the limit of ${maxMemberBytes}.`,
        );
      }
      if (offset + size > fileSize) {
        throw refused(`The OVA member ${name} reaches past the end of the file (truncated).`);
      }
      if (type === 'L') {
        // A GNU long name: the next member's name is this one's data.
        const data = Buffer.alloc(Math.min(size, 4096));
        await handle.read(data, 0, data.length, offset);
        longName = text(data, 0, data.length);
      } else if (type === 'x') {
        // A pax header: its `path` and `size` records stand for the next member's.
        const data = Buffer.alloc(Math.min(size, 64 * 1024));
        await handle.read(data, 0, data.length, offset);
        for (const [, key, value] of data.toString('utf8').matchAll(/\d+ (\w+)=([^\n]*)\n/g)) {
          if (key === 'path') longName = value ?? null;
          if (key === 'size' && /^\d+$/.test(value ?? '')) paxSize = Number(value);
        }
      } else if (type !== 'g') {
        if (!isSafeMemberName(name)) {
          throw refused(`The OVA member name ${JSON.stringify(name)} leaves its folder.`);
        }
        members.push({ name, size, offset, type: type === '\0' ? '0' : type });
        if (members.length > OVA_MAX_MEMBERS) {
          throw refused(`The OVA has more than ${OVA_MAX_MEMBERS} members.`);
        }
      }
      at = offset + Math.ceil(size / TAR_BLOCK) * TAR_BLOCK;
    }
    if (members.length === 0) throw refused('The OVA is not a tar archive.');
    return members;
  } finally {
    await handle.close();
  }
}

/**
 * Copies the OVA's first .vmdk member to `target` (after every header was checked); refused
 * when it has none.
 */
export async function extractFirstVmdk(
  ova: string,
  target: string,
  maxMemberBytes: number,
): Promise<void> {
  const members = await tarMembers(ova, maxMemberBytes);
  const disk = members.find((m) => m.type === '0' && /\.vmdk$/i.test(m.name));
  if (!disk) throw refused('The OVA holds no .vmdk disk.');
  if (disk.size === 0) throw refused(`The OVA member ${disk.name} is empty.`);
  const from = await open(ova, 'r');
  const to = await open(target, 'wx');
  try {
    await pipeline(
      from.createReadStream({ start: disk.offset, end: disk.offset + disk.size - 1 }),
      to.createWriteStream(),
    );
  } finally {
    await from.close().catch(() => {});
    await to.close().catch(() => {});
  }
}
