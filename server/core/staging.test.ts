import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { removeStaleStaging, STAGING_PREFIX, STALE_STAGING_MS } from './staging';

// What a process killed mid-upload leaves: hidden staging files and folders beside the targets.

describe('removeStaleStaging', () => {
  const roots: string[] = [];
  afterEach(() => {
    for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
  });

  function tree() {
    const root = mkdtempSync(join(tmpdir(), 'topoplay-staging-'));
    roots.push(root);
    mkdirSync(join(root, 'ws1'));
    return root;
  }
  /** The time the leftovers are judged at; the files are aged from it. */
  const now = Date.UTC(2030, 0, 1);
  const age = (path: string, ms: number) => {
    const when = new Date(now - ms);
    utimesSync(path, when, when);
  };

  it('removes stale staging files and folders, and keeps uploads in progress and real files', () => {
    const root = tree();
    const staleFile = join(root, 'ws1', `${STAGING_PREFIX}a`);
    const staleDir = join(root, 'ws1', `${STAGING_PREFIX}b`);
    const liveDir = join(root, 'ws1', `${STAGING_PREFIX}c`);
    const real = join(root, 'ws1', 'disk.iso');
    writeFileSync(staleFile, 'half');
    mkdirSync(staleDir);
    writeFileSync(join(staleDir, 'disk.iso'), 'half');
    mkdirSync(liveDir);
    writeFileSync(join(liveDir, 'disk.iso'), 'growing');
    writeFileSync(real, 'whole');
    for (const path of [staleFile, join(staleDir, 'disk.iso'), staleDir, liveDir, real]) {
      age(path, STALE_STAGING_MS + 60_000);
    }
    // Written a second ago.
    age(join(liveDir, 'disk.iso'), 1_000);

    return removeStaleStaging(root, now).then((removed) => {
      expect(removed).toBe(2);
      expect(existsSync(staleFile)).toBe(false);
      expect(existsSync(staleDir)).toBe(false);
      // Its folder is old, but the file in it is still being written.
      expect(existsSync(liveDir)).toBe(true);
      expect(existsSync(real)).toBe(true);
    });
  });

  it('has nothing to do without the folder', async () => {
    expect(await removeStaleStaging(join(tmpdir(), 'topoplay-no-such-folder'))).toBe(0);
  });
});
