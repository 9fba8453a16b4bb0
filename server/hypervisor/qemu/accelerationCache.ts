import { createHash } from 'node:crypto';
import { readFileSync, realpathSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

// The acceleration probe's answer, kept for the other server processes of this boot of the host
// (a restart, a second server, each test's server), which would otherwise each wait for a probe
// guest: up to 8 s on a host whose /dev/kvm opens yet runs no guest. The answer holds while the
// host stays booted with the same QEMU binary, the same probe kernel and the same /dev/kvm
// (reloading the KVM module makes the device anew).

/** The most answers the file keeps (one per QEMU binary and probe kernel). */
const KEPT = 16;

/** The file in the temporary folder, trusted only when this process's user owns it. */
export const ACCELERATION_CACHE = join(tmpdir(), 'topoplay-qemu-acceleration.json');

/** The executable `binary` names, as the shell would find it on PATH. */
function onPath(binary: string): string | null {
  if (binary.includes('/')) return binary;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    try {
      const path = join(dir, binary);
      if (statSync(path).isFile()) return realpathSync(path);
    } catch {
      // not in this folder
    }
  }
  return null;
}

const fingerprint = (path: string) => {
  const stat = statSync(path);
  return `${realpathSync(path)}:${stat.size}:${stat.mtimeMs}`;
};

/** A kernel by its content: each test's images folder may hold its own copy of the same one. */
const contentOf = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

/**
 * What the answer depends on: this boot of the host, /dev/kvm, the QEMU binary and the probe
 * kernel (null: the firmware). Null when any of them cannot be read: then nothing is kept.
 */
export function probeKey(binary: string, kernel: string | null): string | null {
  try {
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    const kvm = statSync('/dev/kvm');
    const qemu = onPath(binary);
    if (!boot || !qemu) return null;
    return [
      boot,
      `kvm:${kvm.rdev}:${kvm.ctimeMs}`,
      fingerprint(qemu),
      kernel ? contentOf(kernel) : 'firmware',
    ].join('|');
  } catch {
    return null;
  }
}

function readAll(path: string): Record<string, string> {
  try {
    if (typeof process.getuid === 'function' && statSync(path).uid !== process.getuid()) return {};
    const all: unknown = JSON.parse(readFileSync(path, 'utf8'));
    if (typeof all !== 'object' || all === null || Array.isArray(all)) return {};
    return Object.fromEntries(
      Object.entries(all).filter(
        (entry): entry is [string, string] => typeof entry[1] === 'string',
      ),
    );
  } catch {
    return {};
  }
}

/** The answer kept for `key`, if any. */
export function readProbe(key: string, path = ACCELERATION_CACHE): string | undefined {
  return readAll(path)[key];
}

/** Keeps `answer` for `key`; a file that cannot be written only costs the next process a probe. */
export function writeProbe(key: string, answer: string, path = ACCELERATION_CACHE): void {
  const entries = Object.entries(readAll(path)).filter(([k]) => k !== key);
  const kept = Object.fromEntries([...entries.slice(-(KEPT - 1)), [key, answer]]);
  const partial = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(partial, JSON.stringify(kept), { mode: 0o600 });
    renameSync(partial, path);
  } catch {
    // the next process probes again
  }
}
