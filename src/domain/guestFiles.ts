// Files a player puts into a running machine from its console (POST vm/{id}/files): the size
// limit and the name rules, the same in the console page (which refuses before sending) and on
// the server (which refuses while receiving).

/**
 * The largest file put into a machine: 1 MiB (a script, a config, a small tool). The qemu driver
 * carries it over its guest agent's serial port as base64, which moved 7 to 10 KB/s on the tiny
 * image (docs/drivers.md), so 1 MiB takes two to three minutes there; the proxmox driver writes
 * it through PVE's guest agent in pieces of 45 KiB a call. Both hold the file in the server's
 * memory on its way. Larger files go into a machine as ISOs (the Files tab's ISO upload).
 */
export const MAX_GUEST_FILE_BYTES = 1024 * 1024;

/** The longest name a file put into a machine keeps (the rest of a longer one is cut). */
export const MAX_GUEST_FILE_NAME = 128;

/** What the limit reads as in messages. */
export const MAX_GUEST_FILE_LABEL = '1 MiB';

/** Why a file is refused before it is sent, or null when it may be sent. */
export function guestFileRefusal(size: number): string | null {
  if (size > MAX_GUEST_FILE_BYTES) {
    return `The file is larger than ${MAX_GUEST_FILE_LABEL}, the most a machine takes from the console.`;
  }
  return null;
}

/** A size as a person reads it: 512 B, 3.4 KiB, 12.0 MiB. */
export function byteSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/**
 * The name a file gets inside the machine, or null when its name is refused. A name that tries
 * to leave the folder (a path, `.` or `..`, a hidden file) or holds control characters is
 * refused; any other character outside letters, digits and `._+-` becomes `_`, so that the name
 * is the same on every guest and safe in a shell.
 */
export function guestFileName(name: string): string | null {
  // Control characters (NUL, newlines) and anything that names a folder.
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f/\\]/.test(name)) return null;
  const trimmed = name.trim();
  if (trimmed === '' || trimmed.startsWith('.')) return null;
  const clean = trimmed
    .normalize('NFC')
    .replace(/[^A-Za-z0-9._+-]+/g, '_')
    .slice(0, MAX_GUEST_FILE_NAME);
  return /[A-Za-z0-9]/.test(clean) ? clean : null;
}
