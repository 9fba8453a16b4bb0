import { randomUUID } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createQemuDriver, type QemuDriver } from '../../../server/hypervisor/qemu/qemuDriver';
import { filesIn } from '../../../server/hypervisor/qemu/layout';
import { screenText } from '../../../server/hypervisor/qemu/qmp';
import { createByteReader, handshakeUpstream } from '../../../server/hypervisor/rfb';
import {
  KEYBOARD_LAYOUTS,
  printableCharacters,
  type KeyboardLayout,
} from '../../../src/domain/keyboardLayouts';
import {
  KEY_BATCH_INTERVAL_MS,
  keyBatches,
  keystrokesOf,
  type Keystroke,
} from '../../../src/domain/keystrokes';
import { CONSOLE_KEYMAPS } from './consoleKeymaps';
import { qemuFolders, tinySpec, type QemuFolders } from './qemuMachines';
import { openSerial, type SerialShell } from './serialShell';

// Every printable character of each keyboard layout, pasted into a real machine whose console
// keymap is that layout, arrives as itself. The keys go the way the console page sends them:
// noVNC's QEMU extended key events (its own table from KeyboardEvent.code to scancode) on the
// machine's VNC socket, into the shell on its screen, which writes them to a file the test reads
// back, byte by byte, on the serial port.

const BOOT_MS = 90_000;

/** noVNC's scancodes by KeyboardEvent.code: the table its QEMU extended key events use. */
const XT_SCANCODES: Record<string, number> = Object.fromEntries(
  [
    ...readFileSync('node_modules/@novnc/novnc/core/input/xtscancodes.js', 'utf8').matchAll(
      /"(\w+)": 0x([0-9a-f]+)/g,
    ),
  ].map(([, code, hex]) => [code!, parseInt(hex!, 16)]),
);

/** As noVNC writes a scancode into the event: an 0xe0-prefixed key has its high bit set. */
const rfbKeycode = (scancode: number): number =>
  scancode >> 8 === 0xe0 && (scancode & 0xff) < 0x7f ? (scancode & 0xff) | 0x80 : scancode;

/** An RFB client on the machine's VNC socket that sends keys as noVNC does, nothing else. */
async function openKeyboard(
  path: string,
): Promise<{ send(strokes: Keystroke[]): void; close(): void }> {
  const socket = await new Promise<Socket>((resolve, reject) => {
    const s = connect(path);
    s.once('connect', () => resolve(s));
    s.once('error', reject);
  });
  const reader = createByteReader();
  socket.on('data', (chunk: Buffer) => reader.push(chunk));
  const write = (bytes: Uint8Array) => void socket.write(bytes);
  await handshakeUpstream((n) => reader.read(n), write, { peer: 'QEMU' });
  write(Uint8Array.of(1)); // ClientInit, shared
  const init = await reader.read(24);
  await reader.read(init.readUInt32BE(20)); // the desktop's name
  // SetEncodings: raw, and the QEMU extended key event pseudo-encoding (-258).
  const encodings = Buffer.alloc(12);
  encodings.writeUInt8(2, 0);
  encodings.writeUInt16BE(2, 2);
  encodings.writeInt32BE(0, 4);
  encodings.writeInt32BE(-258, 8);
  write(encodings);
  return {
    send(strokes) {
      for (const { keysym, code, down } of strokes) {
        const scancode = code === null ? undefined : XT_SCANCODES[code];
        if (scancode === undefined) throw new Error(`no scancode for ${code}`);
        const event = Buffer.alloc(12);
        event.writeUInt8(255, 0);
        event.writeUInt8(0, 1);
        event.writeUInt16BE(down ? 1 : 0, 2);
        event.writeUInt32BE(keysym, 4);
        event.writeUInt32BE(rfbKeycode(scancode), 8);
        write(event);
      }
    },
    close: () => socket.destroy(),
  };
}

const CONTROL_D: Keystroke[] = [
  { keysym: 0xffe3, code: 'ControlLeft', down: true },
  { keysym: 0x64, code: 'KeyD', down: true },
  { keysym: 0x64, code: 'KeyD', down: false },
  { keysym: 0xffe3, code: 'ControlLeft', down: false },
];

/**
 * What the Linux console makes of a dead key followed by Space: its own character, except that the
 * kernel's default compose table (a binary keymap has none of its own) turns the acute accent and
 * the diaeresis into the ASCII apostrophe and quotation mark. A guest under X types ´ and ¨.
 */
const LINUX_CONSOLE_SPACING: Record<string, string> = { '´': "'", '¨': '"' };

let folders: QemuFolders;
let driver: QemuDriver;
let serial: SerialShell;
let qmpSocket: string;
let keyboard: Awaited<ReturnType<typeof openKeyboard>>;

beforeAll(async () => {
  folders = await qemuFolders();
  driver = await createQemuDriver({ ...folders, watchMs: 200, warmImages: false });
  const tag = randomUUID();
  const [machine] = await driver.deployBatch(
    {
      isolationTag: tag,
      hostAffinity: false,
      privileged: false,
      specs: [tinySpec('keys', tag, { autoStart: true })],
    },
    true,
  );
  serial = await openSerial(driver.serialSocket(machine!.id), BOOT_MS);
  await serial.until(/:~# /, BOOT_MS);
  qmpSocket = driver.qmpSocket(machine!.id);
  keyboard = await openKeyboard(filesIn(dirname(qmpSocket)).vnc);
}, 600_000);

afterAll(async () => {
  keyboard?.close();
  serial?.close();
  await driver?.deleteAll('#').catch(() => undefined);
  await driver?.removeOrphans().catch(() => 0);
  await driver?.close().catch(() => undefined);
  try {
    process.kill(Number(readFileSync(join(folders.stateDir, 'switch', 'switch.pid'), 'utf8')));
  } catch {
    // No switch was left.
  }
  rmSync(folders.root, { recursive: true, force: true });
}, 120_000);

/** Loads the layout's console keymap on the machine (kept by the kernel for every console). */
async function loadKeymap(layout: KeyboardLayout): Promise<void> {
  const encoded = CONSOLE_KEYMAPS[layout];
  await serial.run(`rm -f /tmp/${layout}.b64`);
  // The shell's line editor takes lines of at most 1024 characters.
  for (let at = 0; at < encoded.length; at += 600) {
    await serial.run(`printf %s '${encoded.slice(at, at + 600)}' >> /tmp/${layout}.b64`);
  }
  const loaded = await serial.run(
    `base64 -d /tmp/${layout}.b64 | gunzip > /tmp/${layout}.bmap && loadkmap < /tmp/${layout}.bmap`,
  );
  expect(loaded.status, loaded.output).toBe(0);
}

/** The file's bytes, read on the serial port. */
async function bytesOf(path: string): Promise<Buffer> {
  // Between markers that the echoed command line does not hold as such.
  const { output } = await serial.run(`echo '<'"<"; od -An -tx1 -v ${path}; echo '>'">"`);
  const hex = /<<([\s0-9a-f]*)>>/.exec(output)?.[1] ?? '';
  return Buffer.from(hex.replace(/\s/g, ''), 'hex');
}

describe('console keyboard layouts on a real machine', () => {
  it.each(KEYBOARD_LAYOUTS)(
    'a paste of every printable character of %s arrives exactly',
    async (layout) => {
      await loadKeymap(layout);
      const text = printableCharacters(layout).join('');
      // The screen's shell writes what it is typed into a file, then marks it done.
      const strokes = [
        ...keystrokesOf(`cat > /tmp/${layout}.txt; touch /tmp/${layout}.done\n`, layout),
        ...keystrokesOf(`${text}\n`, layout),
        ...CONTROL_D,
      ];
      // In batches, as the console page sends a paste.
      for (const batch of keyBatches(strokes)) {
        keyboard.send(batch);
        await new Promise((resolve) => setTimeout(resolve, KEY_BATCH_INTERVAL_MS));
      }
      await vi.waitFor(
        async () => {
          const done = (await serial.run(`[ -e /tmp/${layout}.done ]`)).status === 0;
          // The screen says what went wrong, if anything did.
          if (!done) throw new Error((await screenText(qmpSocket)).join('\n'));
        },
        { timeout: 30_000, interval: 500 },
      );
      const expected = [...text].map((char) => LINUX_CONSOLE_SPACING[char] ?? char).join('');
      expect((await bytesOf(`/tmp/${layout}.txt`)).toString('utf8')).toBe(`${expected}\n`);
    },
    180_000,
  );
});
