import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { probeKey, readProbe, writeProbe } from './accelerationCache';

describe('the kept acceleration probe', () => {
  const dirs: string[] = [];
  const file = () => {
    const dir = mkdtempSync(join(tmpdir(), 'topoplay-accel-'));
    dirs.push(dir);
    return join(dir, 'acceleration.json');
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('answers what was kept for the same key, and nothing for another', () => {
    const path = file();
    expect(readProbe('a', path)).toBeUndefined();
    writeProbe('a', 'tcg', path);
    writeProbe('b', 'kvm', path);
    expect(readProbe('a', path)).toBe('tcg');
    expect(readProbe('b', path)).toBe('kvm');
    expect(readProbe('c', path)).toBeUndefined();
    writeProbe('a', 'kvm-default-cpu', path);
    expect(readProbe('a', path)).toBe('kvm-default-cpu');
  });

  it('keeps the newest sixteen answers', () => {
    const path = file();
    for (let i = 0; i < 20; i++) writeProbe(`k${i}`, 'tcg', path);
    expect(readProbe('k3', path)).toBeUndefined();
    expect(readProbe('k4', path)).toBe('tcg');
    expect(readProbe('k19', path)).toBe('tcg');
  });

  it('reads a damaged file as nothing kept, and replaces it', () => {
    const path = file();
    writeFileSync(path, '{"a": "tc');
    expect(readProbe('a', path)).toBeUndefined();
    writeProbe('a', 'tcg', path);
    expect(readProbe('a', path)).toBe('tcg');
    writeFileSync(path, '["tcg"]');
    expect(readProbe('0', path)).toBeUndefined();
  });

  it('keys on the QEMU binary and the probe kernel, and keeps nothing without them', () => {
    const kernel = file();
    writeFileSync(kernel, 'kernel one');
    const withKernel = probeKey('sh', kernel);
    // The key needs /dev/kvm and the host's boot id; without them there is nothing to keep.
    if (withKernel === null) return;
    expect(probeKey('sh', null)).not.toBe(withKernel);
    expect(probeKey('no-such-binary-here', kernel)).toBeNull();
    writeFileSync(kernel, 'kernel two, longer');
    expect(probeKey('sh', kernel)).not.toBe(withKernel);
    // A copy of the same kernel elsewhere is the same kernel.
    const copy = file();
    writeFileSync(copy, 'kernel two, longer');
    expect(probeKey('sh', copy)).toBe(probeKey('sh', kernel));
  });
});
