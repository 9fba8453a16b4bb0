import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ConsoleInput } from './keys';
import {
  answer,
  applyInput,
  applyInputs,
  MAX_INPUT,
  MAX_LINES,
  newTerminal,
  words,
  type Terminal,
} from './terminal';
import { machineFiles } from './files';

const type = (t: Terminal, text: string): Terminal =>
  [...text].reduce<Terminal>(
    (acc, char) =>
      applyInput(acc, char === '\n' ? { kind: 'enter' } : ({ kind: 'char', char } as ConsoleInput)),
    t,
  );

const texts = (t: Terminal) => t.lines.map((l) => l.prompt + l.text);

describe('simulated shell', () => {
  it('prompts with the machine name', () => {
    expect(newTerminal('kali').prompt).toBe('kali:~$ ');
  });

  it('echoes typed characters and deletes with Backspace', () => {
    let t = type(newTerminal('kali'), 'lss');
    t = applyInput(t, { kind: 'backspace' });
    expect(t.input).toBe('ls');
  });

  it('keeps what topoplay-copy is given, words or a file, for the console to copy out', () => {
    const files = machineFiles('kali', [{ key: 'guestinfo.flag', value: 'FLAG-1' }]);
    let t = type(newTerminal('kali', files), 'topoplay-copy "two  words" more\n');
    expect(t.copied).toBe('two  words more');
    expect(texts(t).at(-1)).toBe('topoplay-copy: 15 bytes ready. Press Copy in the console.');
    t = type(t, 'topoplay-copy /sys/firmware/qemu_fw_cfg/by_name/opt/guestinfo.flag/raw\n');
    expect(t.copied).toBe('FLAG-1');
    t = type(t, 'echo other\n');
    expect(t.copied).toBe('FLAG-1');
  });

  it('keeps the typed line and answers it on Enter', () => {
    const t = type(newTerminal('kali'), 'ps -ef\n');
    expect(t.input).toBe('');
    expect(texts(t).slice(-2)).toEqual(['kali:~$ ps -ef', 'sim: ps: simulated machine']);
  });

  it('answers a few commands', () => {
    expect(answer('echo  hello   world', 'kali')).toEqual(['hello world']);
    expect(answer('hostname', 'kali')).toEqual(['kali']);
    expect(answer('   ', 'kali')).toEqual([]);
  });

  it('clears the screen on `clear` and Ctrl-L', () => {
    expect(type(newTerminal('kali'), 'clear\n').lines).toEqual([]);
    expect(applyInput(type(newTerminal('k'), 'ab'), { kind: 'clear' })).toMatchObject({
      lines: [],
      input: 'ab',
    });
  });

  it('abandons the line on Ctrl-C and reports Ctrl-Alt-Del', () => {
    let t = applyInput(type(newTerminal('k'), 'oops'), { kind: 'interrupt' });
    expect(t.input).toBe('');
    expect(texts(t).at(-1)).toBe('k:~$ oops^C');
    t = applyInput(t, { kind: 'ctrlAltDel' });
    expect(texts(t).at(-1)).toBe('[ctrl-alt-del] reboot requested');
  });

  it('splits a command line into words as a shell does, quotes included', () => {
    expect(words(`vmtoolsd --cmd "info-get guestinfo.flag"`)).toEqual([
      'vmtoolsd',
      '--cmd',
      'info-get guestinfo.flag',
    ]);
    expect(words(`  cat  '/etc/a b'  x`)).toEqual(['cat', '/etc/a b', 'x']);
  });

  describe('guest settings where a real guest reads them', () => {
    const files = machineFiles('kali', [
      { key: 'guestinfo.flag', value: 'f00d' },
      { key: 'guestinfo.team', value: 'blue red' },
    ]);
    const run = (command: string) => answer(command, 'kali', files);

    it("cats them from QEMU's fw_cfg, as the tiny image and the qemu driver give them", () => {
      expect(run('cat /sys/firmware/qemu_fw_cfg/by_name/opt/guestinfo.flag/raw')).toEqual(['f00d']);
      expect(run('ls -l /sys/firmware/qemu_fw_cfg/by_name/opt/')).toEqual([
        'guestinfo.flag  guestinfo.team',
      ]);
      expect(run('cat /sys/firmware/qemu_fw_cfg/by_name/opt/guestinfo.flag')).toEqual([
        'cat: /sys/firmware/qemu_fw_cfg/by_name/opt/guestinfo.flag: Is a directory',
      ]);
    });

    it("cats them from the proxmox guest agent's file", () => {
      expect(run('cat /etc/topoplay-guestinfo')).toEqual([
        'guestinfo.flag=f00d',
        'guestinfo.team=blue red',
      ]);
    });

    it('reads them through VMware Tools, as the reference’s vSphere guests (and cloud-init) do', () => {
      expect(run('vmtoolsd --cmd "info-get guestinfo.team"')).toEqual(['blue red']);
      expect(run("vmware-rpctool 'info-get guestinfo.flag'")).toEqual(['f00d']);
      expect(run('vmtoolsd --cmd "info-get guestinfo.none"')).toEqual(['No value found']);
    });

    it('says so of a file that is not there, and has no agent file without settings', () => {
      expect(run('cat /etc/shadow /etc/hostname')).toEqual([
        'cat: /etc/shadow: No such file or directory',
        'kali',
      ]);
      expect(answer('cat /etc/topoplay-guestinfo', 'kali', machineFiles('kali', []))).toEqual([
        'cat: /etc/topoplay-guestinfo: No such file or directory',
      ]);
    });

    it('answers on the screen when typed', () => {
      const t = type(newTerminal('kali', files), 'cat /etc/topoplay-guestinfo\n');
      expect(texts(t).slice(-2)).toEqual(['guestinfo.flag=f00d', 'guestinfo.team=blue red']);
    });
  });

  it('bounds the typed line and the history', () => {
    expect(type(newTerminal('k'), 'x'.repeat(MAX_INPUT + 10)).input).toHaveLength(MAX_INPUT);
    const t = type(newTerminal('k'), 'echo\n'.repeat(MAX_LINES));
    expect(t.lines).toHaveLength(MAX_LINES);
  });

  it('applies a batch of inputs as applying them one by one does', () => {
    const input: fc.Arbitrary<ConsoleInput> = fc.oneof(
      fc.constantFrom<ConsoleInput>(
        { kind: 'enter' },
        { kind: 'backspace' },
        { kind: 'interrupt' },
        { kind: 'clear' },
        { kind: 'ctrlAltDel' },
      ),
      fc.constantFrom('a', 'e', 'c', 'h', 'o', 'l', 'r', ' ').map<ConsoleInput>((char) => ({
        kind: 'char',
        char,
      })),
    );
    // Long enough batches to pass twice MAX_LINES, where the batch cuts its lines.
    const inputs = fc.array(fc.oneof(input, fc.constant<ConsoleInput>({ kind: 'enter' })), {
      maxLength: 3 * MAX_LINES,
    });
    fc.assert(
      fc.property(inputs, (batch) => {
        const start = newTerminal('k');
        expect(applyInputs(start, batch)).toEqual(batch.reduce(applyInput, start));
      }),
      { numRuns: 200 },
    );
  });

  it('bounds the history of a long paste of line breaks', () => {
    const enters = Array.from({ length: 10 * MAX_LINES }, (): ConsoleInput => ({ kind: 'enter' }));
    expect(applyInputs(newTerminal('k'), enters).lines).toHaveLength(MAX_LINES);
  });
});
