import { execFile } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { DomainError } from './errors';

// What an uploaded disk image must pass before it joins the images folder, through qemu-img:
// its format is the one its name says, it stands alone (no backing file, no external data file,
// no extent in another file: any of those would let a conversion read a file of the server), and
// none of its data lies past its end (a truncated upload). OVAs are opened in ovaArchive.ts.

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
