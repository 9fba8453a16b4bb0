import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { COPY_FILE, COPY_MAX_BYTES } from '../guestClipboard';
import { FW_CFG_BY_NAME, GUEST_SETTINGS_FILE, guestSettingsText } from '../guestFiles';
import type { GuestSetting } from '../types';
import { DriverError } from '../types';

// Topoplay's guest agent: a shell script the stock images run on their second serial port
// (ttyS1), which QEMU serves on the machine's `agent.sock`. It answers one line for each line it
// reads:
//   `ping`                  -> `TOPOPLAY pong` once the machine has booted as far as its image
//                              goes (the tiny image: init ran; Debian: cloud-init finished);
//                              nothing before. The words after it are what else the agent
//                              knows: `clipboard` (agents of older images answer without it).
//   `prepare`               -> `TOPOPLAY prepared`: the page cache dropped and free memory
//                              zeroed, so that the saved state holds what the machine uses.
//   `personalize TIME SEED` -> `TOPOPLAY personalized HOSTNAME`: after a restore from a warm image,
//                              the machine takes what makes it its own (see personalize below).
//   `settings BASE64`       -> `TOPOPLAY settings COUNT`: the machine's guest settings while it
//                              runs (a pooled machine claimed by a gamespace, a change through the
//                              API), base64 of `key=value` lines (see settings below).
//   `clipboard`             -> `TOPOPLAY clipboard BASE64`: what was last copied in the guest
//                              (../guestClipboard.ts), at most COPY_MAX_BYTES; nothing after
//                              the verb when nothing was.
//   `put-part NAME OFFSET LINES` -> `TOPOPLAY put-part NAME SIZE`: the next LINES lines on the
//                              port are base64 the agent appends to the file NAME being put
//                              (from scratch when OFFSET is 0); SIZE is its length so far.
//   `put-end NAME`          -> `TOPOPLAY put-end SHA256 PATH`: the file is in place, PATH is
//                              where (see uploads_dir below).
//   `put-abort NAME`        -> `TOPOPLAY put-abort NAME`: what was received of it is removed.
// A restored machine is the warm image's machine until it has answered `personalized`; the
// driver never hands one out before.

/** What the agent says it knows after `TOPOPLAY pong`. */
export const AGENT_FEATURES = ['clipboard'] as const;
export type AgentFeature = (typeof AGENT_FEATURES)[number];

/** The features a `ping`'s answer names. */
export const featuresOf = (pong: string): string[] => pong.split(/\s+/).slice(2).filter(Boolean);

/** The serial port the agent listens on inside the guest. */
export const AGENT_PORT = '/dev/ttyS1';
/** fw_cfg entry with the machine's MACs, in NIC order, separated by spaces. */
export const MACS_FW_CFG = 'opt/topoplay/macs';
/** The image-specific part of a personalization, run last when the image has it. */
export const PERSONALIZE_HOOK = '/etc/topoplay/personalize';
export const AGENT_PATH = '/usr/sbin/topoplay-agent';
/** The image-specific part of taking new guest settings, run last when the image has it. */
export const SETTINGS_HOOK = '/etc/topoplay/settings';
/** The folder, in the home of the machine's login user, that files put into it land in. */
export const UPLOADS_FOLDER = 'uploads';
/** Base64 characters in one line of a file being put: a line of the port holds at most 4095. */
export const PUT_LINE_CHARS = 3072;
/** Where the agent keeps the fw_cfg files it shows in place of QEMU's (see settings below). */
const SHADOW_FW_CFG = '/run/topoplay/fw_cfg';

// Personalize: the clock set, the kernel's RNG fed with the host's random bytes, the fw_cfg files
// read again (the qemu_fw_cfg module lists them when it loads, and a restored machine has other
// files than the machine it was saved from), the hostname and each NIC's MAC taken from them,
// then the image's hook (addresses, host keys, machine-id, consoles). Every step that fails is
// skipped, not fatal: the agent must always answer.
export const AGENT_SCRIPT = `#!/bin/sh
# Topoplay guest agent: answers the host on ${AGENT_PORT} (see the Topoplay docs, drivers).
PATH=/usr/sbin:/usr/bin:/sbin:/bin
fw=${FW_CFG_BY_NAME}
port=\${1:-${AGENT_PORT}}
exec <"$port" >"$port" 2>/dev/null
stty -echo -icrnl -onlcr -ixoff 2>/dev/null
# The agent must always answer: never the one the kernel ends when memory runs out.
echo -1000 > /proc/self/oom_score_adj 2>/dev/null

setting() { cat "$fw/$1/raw" 2>/dev/null; }

# Booted as far as the image goes: where cloud-init runs, once it has finished (its users, keys
# and files are there).
booted() {
  [ -d /var/lib/cloud ] || return 0
  [ -e /run/cloud-init/disabled ] && return 0
  [ -e /var/lib/cloud/instance/boot-finished ]
}

reload_fw_cfg() {
  rmmod qemu_fw_cfg 2>/dev/null
  modprobe qemu_fw_cfg 2>/dev/null || insmod /lib/modules/qemu_fw_cfg.ko 2>/dev/null
  i=0
  while [ ! -d "$fw" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
}

# Before a warm image is saved: the page cache dropped, then the free memory written with zeros
# (a tmpfs filled and removed), so that the saved state leaves it out. The margin left free, twice
# the kernel's reserve and 16 MiB, keeps it above its watermarks: with 16 MiB alone, a Debian
# machine of 1 GiB (whose reserve transparent huge pages raise to tens of MiB) ran out of memory
# and killed its services.
prepare() {
  sync
  echo 3 > /proc/sys/vm/drop_caches
  free=$(awk '/^MemFree:/ { print int($2 / 1024) }' /proc/meminfo)
  reserve=$(($(cat /proc/sys/vm/min_free_kbytes 2>/dev/null || echo 8192) / 1024))
  size=$((free - 2 * reserve - 16))
  fill=/run/topoplay-fill
  if [ "$size" -gt 0 ] && mkdir -p $fill && mount -t tmpfs -o size=\${size}m tmpfs $fill; then
    dd if=/dev/zero of=$fill/zero bs=1M count=$size 2>/dev/null
    umount $fill
  fi
}

# Guest settings while the machine runs: fw_cfg cannot change under a running QEMU, so the agent
# shows a copy of QEMU's opt/ fw_cfg files in their place (a bind mount), with the settings written
# in, where every reader of a setting looks (the images' scripts, a lab's own). Only opt/: QEMU's
# own files (ACPI tables and the like) are large, and reading fw_cfg is slow under emulation. The same lines go to
# ${GUEST_SETTINGS_FILE}, then the image's hook runs.
# The cloud.* settings an image's hook may apply to a running machine, as the copy shows them now,
# in variables {prefix}_{name}; read with the shell's own commands, which cost nothing.
CLOUD_KEYS='user password sudo ssh_authorized_keys'
cloud_values() {
  for k in $CLOUD_KEYS; do
    v=
    f="$shadow/opt/guestinfo.cloud.$k/raw"
    [ -r "$f" ] && IFS= read -r v < "$f"
    eval "$1_$k=\\$v"
  done
}

settings() {
  text=$(echo "$1" | base64 -d 2>/dev/null) || return
  shadow=${SHADOW_FW_CFG}
  if ! grep -q " $fw/opt " /proc/mounts; then
    rm -rf $shadow
    mkdir -p $shadow/opt
    cp -rL "$fw/opt/." $shadow/opt/ 2>/dev/null
    mount --bind $shadow/opt "$fw/opt" || return
  fi
  # What the cloud.* settings were, for the image's hook to tell what changed (the agent's last
  # ones, or at the first call QEMU's own, which the machine booted with).
  cloud_values old
  (umask 077; printf '%s\\n' "$text" > ${GUEST_SETTINGS_FILE})
  count=0
  while IFS= read -r line; do
    key=\${line%%=*}
    [ -n "$key" ] && [ "$key" != "$line" ] || continue
    case "$key" in */* | .* ) continue ;; esac
    [ -d "$shadow/opt/$key" ] || mkdir -p "$shadow/opt/$key"
    printf '%s' "\${line#*=}" > "$shadow/opt/$key/raw"
    count=$((count + 1))
  done <<EOF_SETTINGS
$text
EOF_SETTINGS
  cloud_values new
  changed=
  for k in $CLOUD_KEYS; do
    eval "[ \\"\\$old_$k\\" = \\"\\$new_$k\\" ]" || changed="$changed cloud.$k"
  done
  [ -x ${SETTINGS_HOOK} ] && TOPOPLAY_CHANGED="$changed" ${SETTINGS_HOOK} </dev/null >/dev/null 2>&1
}

# Files put into the machine: in the folder uploads of its login user's home, that user being the
# first of the guest setting cloud.user, debian and root that has a home; owned by that user.
# Prints the user, then the folder.
uploads_dir() {
  for u in "$(setting opt/guestinfo.cloud.user)" debian root; do
    [ -n "$u" ] || continue
    home=$(awk -F: -v u="$u" '$1 == u { print $6 }' /etc/passwd)
    if [ -n "$home" ] && [ -d "$home" ]; then echo "$u $home/${UPLOADS_FOLDER}"; return; fi
  done
  echo "root /root/${UPLOADS_FOLDER}"
}

# NAME is one the host checked (letters, digits and ._+-, not starting with a dot). The lines come
# as base64, at most ${PUT_LINE_CHARS} characters each: a line of the port, in its canonical mode,
# holds at most 4095. head reads them straight from the port, a line per read, so that the shell's
# own read (a byte per call) never sees them.
put_part() {
  set -- "$1" "$2" "$3" $(uploads_dir)
  mkdir -p "$5" && chown "$4" "$5" 2>/dev/null
  part="$5/.$1.part"
  [ "$2" = 0 ] && : > "$part"
  head -n "$3" | base64 -d >> "$part"
  echo "TOPOPLAY put-part $1 $(wc -c < "$part")"
}

put_end() {
  set -- "$1" $(uploads_dir)
  mv -f "$3/.$1.part" "$3/$1" && chown "$2" "$3/$1" 2>/dev/null
  sum=$(sha256sum "$3/$1" | cut -d' ' -f1)
  echo "TOPOPLAY put-end $sum $3/$1"
}

personalize() {
  # A copy shown in place of QEMU's fw_cfg files is the saved machine's: the restored QEMU's own
  # are read below.
  umount "$fw/opt" 2>/dev/null
  date -u -s "$(echo "$1" | tr T ' ')" >/dev/null 2>&1
  [ -n "$2" ] && echo "$2" > /dev/urandom
  reload_fw_cfg
  name=$(setting opt/topoplay/hostname)
  if [ -n "$name" ]; then hostname "$name"; echo "$name" > /etc/hostname; fi
  i=0
  for mac in $(setting ${MACS_FW_CFG}); do
    nic=eth$i
    if [ -e /sys/class/net/$nic ]; then
      old=$(cat /sys/class/net/$nic/address)
      ip link set dev $nic down
      ip link set dev $nic address $mac
      ip link set dev $nic up
      # Network configurations that match the NIC by the saved machine's MAC follow it.
      for f in /etc/systemd/network/*.network /run/systemd/network/*.network; do
        [ -f "$f" ] && [ "$old" != "$mac" ] && sed -i "s/$old/$mac/g" "$f"
      done
    fi
    i=$((i + 1))
  done
  [ -x ${PERSONALIZE_HOOK} ] && ${PERSONALIZE_HOOK} </dev/null >/dev/null 2>&1
}

while read -r verb a b c; do
  case "$a" in */* | .* ) case "$verb" in put-*) continue ;; esac ;; esac
  case "$verb" in
    ping) booted && echo "TOPOPLAY pong ${AGENT_FEATURES.join(' ')}" ;;
    prepare) prepare; echo "TOPOPLAY prepared" ;;
    personalize) personalize "$a" "$b"; echo "TOPOPLAY personalized $(hostname)" ;;
    settings) count=0; settings "$a"; echo "TOPOPLAY settings $count" ;;
    clipboard)
      printf 'TOPOPLAY clipboard '
      [ -r ${COPY_FILE} ] && head -c ${COPY_MAX_BYTES} ${COPY_FILE} | base64 | tr -d '\\n'
      echo ;;
    put-part) put_part "$a" "$b" "$c" ;;
    put-end) put_end "$a" ;;
    put-abort) set -- "$a" $(uploads_dir); rm -f "$3/.$1.part"; echo "TOPOPLAY put-abort $1" ;;
  esac
done
`;

/** What `clipboard` answers with, base64 of at most COPY_MAX_BYTES. */
export const CLIPBOARD_ANSWER = 'TOPOPLAY clipboard';
export const CLIPBOARD_ANSWER_CHARS =
  CLIPBOARD_ANSWER.length + 8 + Math.ceil(COPY_MAX_BYTES / 3) * 4;

/** The text of `clipboard`'s answer line. */
export const clipboardOf = (answer: string): Buffer =>
  Buffer.from(answer.slice(CLIPBOARD_ANSWER.length).trim(), 'base64');

/**
 * The agent's answers arrive as lines; a stray carriage return or NUL is noise on the port, and
 * so are XOFF and XON (0x13, 0x11), which a guest's tty sends when its input fills faster than the
 * agent reads (a file put's window on a loaded host), in front of the next answer.
 */
const NOISE = new Set(['\r', '\0', '\x11', '\x13']);
const linesOf = (text: string) =>
  [...text]
    .filter((c) => !NOISE.has(c))
    .join('')
    .split('\n');

/**
 * What `personalize` sends: the host's real time (UTC, to the second: the guest's clock is the
 * world's, whatever clock the driver runs on) and 32 random bytes.
 */
export function personalizeLine(): string {
  const time = new Date().toISOString().slice(0, 19);
  return `personalize ${time} ${randomBytes(32).toString('hex')}`;
}

/**
 * What `settings` sends: every setting in order, one line each (a key set again takes its last
 * value, as at a start; `cloud.ssh_authorized_keys` adds up).
 */
export function settingsLine(settings: readonly GuestSetting[]): string {
  return `settings ${Buffer.from(guestSettingsText(settings)).toString('base64')}`;
}

export interface AgentCall {
  /** The line sent, sent again every `repeatMs` until the answer comes (0: once). */
  line: string;
  /** The answer awaited: its first words. */
  answer: string;
  timeoutMs: number;
  repeatMs?: number;
  /** Ends the wait at once, as a failure. */
  signal?: AbortSignal;
  /** The longest answer line awaited, in characters (default 8 KiB: what else comes is noise). */
  maxAnswerChars?: number;
}

const DEFAULT_MAX_ANSWER_CHARS = 8_192;

/** Per agent socket, the end of the calls on it so far: the next call starts after it. */
const turns = new Map<string, Promise<void>>();

/**
 * Sends `line` to the agent behind `socketPath` and resolves with the answer line that starts
 * with `answer`. A serial port drops what is written while nobody reads it, and QEMU's socket
 * may not exist yet: the connection is retried and the line repeated until the deadline.
 *
 * Calls on one socket take turns: QEMU's socket has one client at a time, and the agent answers
 * whichever client is connected, so a second caller's connection would wait unaccepted while
 * lines it repeated piled up for the agent. The deadline counts from the call, its turn included.
 */
export function callAgent(socketPath: string, call: AgentCall): Promise<string> {
  const before = turns.get(socketPath) ?? Promise.resolve();
  const result = exchange(socketPath, call, before);
  const after = result.then(
    () => undefined,
    () => undefined,
  );
  turns.set(socketPath, after);
  void after.then(() => {
    if (turns.get(socketPath) === after) turns.delete(socketPath);
  });
  return result;
}

function exchange(socketPath: string, call: AgentCall, turn: Promise<void>): Promise<string> {
  return new Promise((resolve, reject) => {
    let socket: Socket | null = null;
    let received = '';
    let done = false;
    let retry: NodeJS.Timeout | undefined;
    let repeat: NodeJS.Timeout | undefined;
    const finish = (error: Error | null, line?: string) => {
      if (done) return;
      done = true;
      clearTimeout(deadline);
      clearTimeout(retry);
      clearInterval(repeat);
      socket?.destroy();
      call.signal?.removeEventListener('abort', aborted);
      if (error) reject(error);
      else resolve(line ?? '');
    };
    const deadline = setTimeout(
      () =>
        finish(
          new DriverError(
            'unavailable',
            `the machine's agent did not answer ${call.line.split(' ')[0]} within ${Math.round(call.timeoutMs / 1000)} s`,
          ),
        ),
      call.timeoutMs,
    );
    const aborted = () =>
      finish(new DriverError('unavailable', 'the wait for the agent was stopped'));
    if (call.signal?.aborted) aborted();
    call.signal?.addEventListener('abort', aborted, { once: true });
    const open = () => {
      if (done) return;
      const s = connect(socketPath);
      socket = s;
      s.setEncoding('latin1');
      s.on('connect', () => {
        s.write(`${call.line}\n`);
        if (call.repeatMs) repeat = setInterval(() => s.write(`${call.line}\n`), call.repeatMs);
      });
      s.on('data', (chunk: string) => {
        received += chunk;
        const most = call.maxAnswerChars ?? DEFAULT_MAX_ANSWER_CHARS;
        if (received.length > most) received = received.slice(-most);
        // Whole lines only: the last piece may be a line still arriving (a long answer comes in
        // many pieces: only a piece that ends a line can complete it).
        if (!chunk.includes('\n')) return;
        const line = linesOf(received)
          .slice(0, -1)
          .find((l) => l.startsWith(call.answer));
        if (line !== undefined) finish(null, line.trim());
      });
      s.on('error', () => s.destroy());
      s.on('close', () => {
        clearInterval(repeat);
        if (!done) retry = setTimeout(open, 100);
      });
    };
    void turn.then(open);
  });
}
