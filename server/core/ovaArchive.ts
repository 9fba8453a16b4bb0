import { open } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { refused } from './diskImageCheck';

// An OVA is a tar of an OVF descriptor, a manifest and disks. Its first .vmdk is cut out of it by
// the offset its header gives, without a tar tool, and only after every member's header was read
// and checked: a member that names a path outside its folder, or declares more bytes than the
// limit or than the file holds (a forged size, a "bomb"), refuses the whole OVA.

/** An OVA with more members than this is refused: real ones have a handful. */
export const OVA_MAX_MEMBERS = 64;

const TAR_BLOCK = 512;

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
