// Copying out of a text-console guest, which has no clipboard of its own: the player hands text
// to `topoplay-copy` inside the machine (`ls | topoplay-copy`, `topoplay-copy notes.txt`), which
// keeps it in one file, and the console's Copy button asks the host for it. The qemu driver reads
// the file through Topoplay's guest agent (qemu/guestAgent.ts, verb `clipboard`), the proxmox
// driver through PVE's guest agent (file-read); the sim's shell has the same command.

/** Where the command is installed in the stock images (on every user's PATH). */
export const COPY_COMMAND = '/usr/bin/topoplay-copy';
/** The text last copied. In /tmp, so that any user of the guest may copy. */
export const COPY_FILE = '/tmp/topoplay-clipboard';
/** The most that is copied out: a longer text is cut here, and the command says so. */
export const COPY_MAX_BYTES = 65_536;

export const COPY_SCRIPT = `#!/bin/sh
# Hands text to the Topoplay console: press Copy in the console's toolbar, and the text is on
# your own computer's clipboard. Usage: some-command | topoplay-copy, or topoplay-copy FILE...
tmp=${COPY_FILE}.$$
if ! cat "$@" > "$tmp"; then rm -f "$tmp"; exit 1; fi
chmod 644 "$tmp" 2>/dev/null
mv -f "$tmp" ${COPY_FILE} || { rm -f "$tmp"; echo "topoplay-copy: cannot write ${COPY_FILE}" >&2; exit 1; }
size=$(wc -c < ${COPY_FILE})
if [ "$size" -gt ${COPY_MAX_BYTES} ]; then
  echo "topoplay-copy: $size bytes; the first ${COPY_MAX_BYTES} are copied. Press Copy in the console." >&2
else
  echo "topoplay-copy: $size bytes ready. Press Copy in the console." >&2
fi
`;

/** What the console says after `topoplay-copy`: the same words as the guest's command. */
export const copiedMessage = (bytes: number): string =>
  bytes > COPY_MAX_BYTES
    ? `topoplay-copy: ${bytes} bytes; the first ${COPY_MAX_BYTES} are copied. Press Copy in the console.`
    : `topoplay-copy: ${bytes} bytes ready. Press Copy in the console.`;

/** The copied text from the file's bytes: at most COPY_MAX_BYTES, as UTF-8 (a cut character dropped). */
export function copiedText(bytes: Buffer): string {
  const text = bytes.subarray(0, COPY_MAX_BYTES).toString('utf8');
  return bytes.length > COPY_MAX_BYTES ? text.replace(/\uFFFD$/, '') : text;
}
