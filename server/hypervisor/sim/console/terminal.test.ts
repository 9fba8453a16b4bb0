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
  type Terminal,
} from './terminal';

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

  it('keeps the typed line and answers it on Enter', () => {
    const t = type(newTerminal('kali'), 'ls -l\n');
    expect(t.input).toBe('');
    expect(texts(t).slice(-2)).toEqual(['kali:~$ ls -l', 'sim: ls: simulated machine']);
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
