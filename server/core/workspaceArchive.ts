import { mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { strToU8, unzipSync, zipSync, type Zippable } from 'fflate';
import type { ArchiveRepository } from '../store/repositories/archives';
import type { TemplateTable, WorkspaceTable } from '../store/schema';
import { forgetDocumentFile } from './documentFiles';
import { isSafeId, writeFileAtomic } from './documents';
import { DomainError } from './errors';
import { EMPTY_GUID } from './ids';
import { isPlainName, kindOf } from './images';
import { entityOf, rowOf, TEMPLATE_FIELDS, WORKSPACE_FIELDS } from './workspaceArchiveFields';

// Workspaces moved between servers as a zip (wire reference §1.8, "Export zip layout"):
//   _data.json      the workspaces as PascalCase entities, each with its `Templates` (detail
//                   included) and `Challenge`; one element with the empty GUID as its id holds the
//                   stock templates they are linked to.
//   _disks.txt      for the operator: the disk and ISO paths the templates use (not read back).
//   {id}.md         a workspace's document (guide).
//   {id}/{file}     its images.
// Import keeps ids. A workspace whose id exists already is skipped whole (never updated), as are
// templates whose id exists, so importing the same archive twice adds nothing the second time.
// The archive is checked whole before anything is written: an entry outside the archive's folder
// (absolute, '..', backslashes), a file that is not a zip or a _data.json that does not read
// refuses it; the database part is one transaction, and files are written after it commits.

/** The most an archive may take, packed and unpacked (archives are handled in memory). */
export const MAX_ARCHIVE_BYTES = 256 * 1024 * 1024;
const DATA_FILE = '_data.json';
const STOCK_IDS = new Set([EMPTY_GUID, EMPTY_GUID.replace(/-/g, '')]);

const refused = (why: string) =>
  new DomainError('InvalidOperation', `The archive was refused: ${why}.`);

export interface ArchiveWorkspace {
  row: WorkspaceTable;
  templates: TemplateTable[];
  document: Uint8Array | null;
  images: Map<string, Uint8Array>;
}

export interface ParsedArchive {
  stock: TemplateTable[];
  workspaces: ArchiveWorkspace[];
}

/** A zip entry's name that stays inside the archive's folder when unpacked. */
function isContained(name: string): boolean {
  if (name.length === 0 || name.length > 512) return false;
  if (/[\\\0]/.test(name) || name.startsWith('/') || /^[A-Za-z]:/.test(name)) return false;
  return !name.split('/').some((segment) => segment === '..');
}

export function readArchive(bytes: Uint8Array): ParsedArchive {
  const zipMagic =
    bytes.length >= 4 &&
    bytes[0] === 0x50 &&
    bytes[1] === 0x4b &&
    (bytes[2] === 3 || bytes[2] === 5);
  if (!zipMagic) throw refused('it is not a zip file');
  if (bytes.length > MAX_ARCHIVE_BYTES) throw refused('it is too large');

  let unpacked = 0;
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(bytes, {
      // Every name and size is checked before any entry is inflated.
      filter: (entry) => {
        if (!isContained(entry.name))
          throw refused(`the entry "${entry.name}" is outside its folder`);
        unpacked += entry.originalSize;
        if (unpacked > MAX_ARCHIVE_BYTES) throw refused('it unpacks to too many bytes');
        return !entry.name.endsWith('/');
      },
    });
  } catch (error) {
    if (error instanceof DomainError) throw error;
    throw refused('it is not a readable zip file');
  }

  const data = files[DATA_FILE];
  if (!data) throw refused(`it has no ${DATA_FILE}`);
  let entities: unknown;
  try {
    entities = JSON.parse(new TextDecoder().decode(data));
  } catch {
    throw refused(`${DATA_FILE} is not JSON`);
  }
  if (!Array.isArray(entities)) throw refused(`${DATA_FILE} is not an array of workspaces`);

  const archive: ParsedArchive = { stock: [], workspaces: [] };
  for (const entity of entities) {
    const fields = camelKeys(entity);
    const templates = Array.isArray(fields.templates) ? fields.templates : [];
    if (STOCK_IDS.has(String(fields.id))) {
      archive.stock.push(...templates.map((t) => templateRow(t, null)));
      continue;
    }
    const row = rowOf(WORKSPACE_FIELDS, fields, 'workspace', refused);
    if (!isSafeId(row.id)) throw refused(`the workspace id "${row.id}" is not valid`);
    const images = new Map<string, Uint8Array>();
    const prefix = `${row.id}/`;
    for (const [name, content] of Object.entries(files)) {
      const file = name.slice(prefix.length);
      if (name.startsWith(prefix) && isPlainName(file) && kindOf(file)) images.set(file, content);
    }
    archive.workspaces.push({
      row,
      templates: templates.map((t) => templateRow(t, row.id)),
      document: files[`${row.id}.md`] ?? null,
      images,
    });
  }
  return archive;
}

function camelKeys(value: unknown): Record<string, unknown> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw refused(`${DATA_FILE} holds something that is not an object`);
  }
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k.charAt(0).toLowerCase() + k.slice(1), v]),
  );
}

function templateRow(value: unknown, workspaceId: string | null): TemplateTable {
  const row = rowOf(TEMPLATE_FIELDS, camelKeys(value), 'template', refused);
  if (!isSafeId(row.id)) throw refused(`the template id "${row.id}" is not valid`);
  return { ...row, workspaceId };
}

/** The disk and ISO paths of templates, from their detail (JSON) and ISO. */
function diskPaths(templates: TemplateTable[]): string[] {
  const paths = new Set<string>();
  for (const t of templates) {
    if (t.iso) paths.add(t.iso);
    try {
      const detail = JSON.parse(t.detail ?? 'null') as { Disks?: Array<{ Path?: unknown }> } | null;
      for (const disk of detail?.Disks ?? [])
        if (typeof disk.Path === 'string') paths.add(disk.Path);
    } catch {
      // A detail that does not read names no disks.
    }
  }
  return [...paths].sort();
}

/** The archive of the given workspaces (`["all"]`: every one); unknown ids are left out. */
export async function buildArchive(
  archives: ArchiveRepository,
  docsDir: string,
  ids: string[],
): Promise<Uint8Array> {
  const all = ids.some((id) => id.toLowerCase() === 'all');
  const wanted = ids.filter(isSafeId);
  if (!all && wanted.length === 0) return zipSync({ [DATA_FILE]: strToU8('[]') });
  const { workspaces, templates, stock } = await archives.rows(all ? 'all' : wanted);

  const files: Zippable = {};
  const entities: unknown[] = [
    {
      Id: EMPTY_GUID,
      Name: 'stock templates',
      Templates: stock.map((t) => entityOf(TEMPLATE_FIELDS, t)),
    },
  ];
  for (const w of workspaces) {
    const own = templates.filter((t) => t.workspaceId === w.id);
    entities.push({
      ...entityOf(WORKSPACE_FIELDS, w),
      Templates: own.map((t) => entityOf(TEMPLATE_FIELDS, t)),
    });
    const document = await readFile(join(docsDir, `${w.id}.md`)).catch(() => null);
    if (document) files[`${w.id}.md`] = document;
    const names = await readdir(join(docsDir, w.id)).catch(() => [] as string[]);
    for (const name of names.filter((n) => isPlainName(n) && kindOf(n))) {
      const image = await readFile(join(docsDir, w.id, name)).catch(() => null);
      if (image) files[`${w.id}/${name}`] = image;
    }
  }
  files[DATA_FILE] = strToU8(JSON.stringify(entities, null, 2));
  const disks = diskPaths([...templates, ...stock]);
  files['_disks.txt'] = strToU8(
    `# The disks and ISO files the exported templates use; copy them to the new server's\n` +
      `# storage at the same paths.\n${disks.join('\n')}\n`,
  );
  return zipSync(files);
}

/**
 * Adds the archive's workspaces that are not here yet (ids kept) and answers their ids. Stock
 * templates and workspace templates whose id exists are left as they are.
 */
export async function importArchive(
  archives: ArchiveRepository,
  docsDir: string,
  archive: ParsedArchive,
): Promise<string[]> {
  const added = await archives.addMissing(archive.stock, archive.workspaces);

  for (const w of added) {
    await mkdir(docsDir, { recursive: true });
    if (w.document) {
      const path = join(docsDir, `${w.row.id}.md`);
      await writeFileAtomic(path, w.document);
      forgetDocumentFile(path);
    }
    if (w.images.size) await mkdir(join(docsDir, w.row.id), { recursive: true });
    for (const [name, content] of w.images) {
      await writeFileAtomic(join(docsDir, w.row.id, name), content);
    }
  }
  return added.map((w) => w.row.id);
}
