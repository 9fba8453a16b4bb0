import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DOCUMENT_FRESH_MS, forgetDocumentFile, readDocumentFile } from './documentFiles';

describe('document files as the play page reads them', () => {
  const dir = mkdtempSync(join(tmpdir(), 'topoplay-docs-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("reads '' for a missing file, and the file once it exists", async () => {
    const path = join(dir, 'missing.md');
    expect(await readDocumentFile(path, 0)).toBe('');
    writeFileSync(path, 'now here');
    expect(await readDocumentFile(path, DOCUMENT_FRESH_MS)).toBe('now here');
  });

  it('trusts a read for a second, then sees a change made by another process', async () => {
    const path = join(dir, 'guide.md');
    writeFileSync(path, 'first');
    expect(await readDocumentFile(path, 10_000)).toBe('first');
    writeFileSync(path, 'second, longer');
    expect(await readDocumentFile(path, 10_000 + DOCUMENT_FRESH_MS - 1)).toBe('first');
    expect(await readDocumentFile(path, 10_000 + DOCUMENT_FRESH_MS)).toBe('second, longer');
  });

  it('sees a same-size change by its modification time', async () => {
    const path = join(dir, 'same.md');
    writeFileSync(path, 'aaaa');
    utimesSync(path, 1, 1);
    expect(await readDocumentFile(path, 20_000)).toBe('aaaa');
    writeFileSync(path, 'bbbb');
    utimesSync(path, 2, 2);
    expect(await readDocumentFile(path, 20_000 + DOCUMENT_FRESH_MS)).toBe('bbbb');
  });

  it("sees this process's own write at once", async () => {
    const path = join(dir, 'own.md');
    writeFileSync(path, 'before');
    expect(await readDocumentFile(path, 30_000)).toBe('before');
    writeFileSync(path, 'after');
    forgetDocumentFile(path);
    expect(await readDocumentFile(path, 30_001)).toBe('after');
  });
});
