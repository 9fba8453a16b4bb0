import type { ConsoleInput } from './keys';

// The simulated machine's shell as immutable data: finished lines, and the line being typed after
// the prompt. Commands answer at once with a line or two; nothing here runs anything.

export interface Line {
  /** The prompt the line was typed after ('' for output lines), drawn in its own colour. */
  prompt: string;
  text: string;
}

export interface Terminal {
  prompt: string;
  hostname: string;
  lines: readonly Line[];
  input: string;
}

/** Older lines are dropped; the screen shows far fewer. */
export const MAX_LINES = 200;
/** A typed line stops growing here, as a line discipline's buffer would. */
export const MAX_INPUT = 255;

const output = (text: string): Line => ({ prompt: '', text });

export function newTerminal(hostname: string): Terminal {
  return {
    prompt: `${hostname}:~$ `,
    hostname,
    lines: [
      output(`Topoplay simulated machine ${hostname}`),
      output("Type 'help' for the commands it knows."),
      output(''),
    ],
    input: '',
  };
}

const appendLines = (t: Terminal, lines: Line[]): Terminal => ({
  ...t,
  lines: [...t.lines, ...lines].slice(-MAX_LINES),
});

/** Adds output lines above the prompt (machine messages). */
export const printLines = (t: Terminal, texts: string[]): Terminal =>
  appendLines(t, texts.map(output));

/** What the simulated shell answers to a command line. */
export function answer(command: string, hostname: string): string[] {
  const [word = '', ...args] = command.trim().split(/\s+/);
  switch (word) {
    case '':
      return [];
    case 'help':
      return ['commands: help, echo TEXT, hostname, whoami, uname, clear'];
    case 'echo':
      return [args.join(' ')];
    case 'hostname':
      return [hostname];
    case 'whoami':
      return ['player'];
    case 'uname':
      return ['Topoplay-sim'];
    default:
      return [`sim: ${word}: simulated machine`];
  }
}

export function applyInput(t: Terminal, input: ConsoleInput): Terminal {
  switch (input.kind) {
    case 'char':
      return t.input.length >= MAX_INPUT ? t : { ...t, input: t.input + input.char };
    case 'backspace':
      return { ...t, input: [...t.input].slice(0, -1).join('') };
    case 'enter': {
      const typed: Line = { prompt: t.prompt, text: t.input };
      if (t.input.trim() === 'clear') return { ...t, lines: [], input: '' };
      return {
        ...appendLines(t, [typed, ...answer(t.input, t.hostname).map(output)]),
        input: '',
      };
    }
    case 'interrupt':
      return { ...appendLines(t, [{ prompt: t.prompt, text: `${t.input}^C` }]), input: '' };
    case 'clear':
      return { ...t, lines: [] };
    case 'ctrlAltDel':
      return printLines(t, ['[ctrl-alt-del] reboot requested']);
  }
}
