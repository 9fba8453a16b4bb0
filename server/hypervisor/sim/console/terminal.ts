import { copiedMessage } from '../../guestClipboard';
import { fwCfgPath, GUEST_SETTINGS_FILE } from '../../guestFiles';
import type { ConsoleInput } from './keys';

// The simulated machine's shell as immutable data: finished lines, and the line being typed after
// the prompt. Commands answer at once with a line or two; nothing here runs anything.

export interface Line {
  /** The prompt the line was typed after ('' for output lines), drawn in its own colour. */
  prompt: string;
  text: string;
}

/** The files a simulated machine holds, by absolute path: what its shell can `cat`. */
export type MachineFiles = ReadonlyMap<string, string>;

const NO_FILES: MachineFiles = new Map();

export interface Terminal {
  prompt: string;
  hostname: string;
  lines: readonly Line[];
  input: string;
  files: MachineFiles;
  /** What `topoplay-copy` was last given ('' before): the console's Copy reads it out. */
  copied: string;
}

/** Older lines are dropped; the screen shows far fewer. */
export const MAX_LINES = 200;
/** A typed line stops growing here, as a line discipline's buffer would. */
export const MAX_INPUT = 255;

const output = (text: string): Line => ({ prompt: '', text });

export function newTerminal(hostname: string, files: MachineFiles = NO_FILES): Terminal {
  return {
    prompt: `${hostname}:~$ `,
    hostname,
    lines: [
      output(`Topoplay simulated machine ${hostname}`),
      output("Type 'help' for the commands it knows."),
      output(''),
    ],
    input: '',
    files,
    copied: '',
  };
}

const appendLines = (t: Terminal, lines: Line[]): Terminal => ({
  ...t,
  lines: [...t.lines, ...lines].slice(-MAX_LINES),
});

/** Adds output lines above the prompt (machine messages). */
export const printLines = (t: Terminal, texts: string[]): Terminal =>
  appendLines(t, texts.map(output));

/** A command line's words, with '...' and "..." each one word, as a shell splits them. */
export function words(command: string): string[] {
  const found: string[] = [];
  for (const match of command.matchAll(/"([^"]*)"?|'([^']*)'?|(\S+)/g)) {
    found.push(match[1] ?? match[2] ?? match[3] ?? '');
  }
  return found;
}

const withoutTrailingSlash = (path: string) => (path.length > 1 ? path.replace(/\/+$/, '') : path);

/** The names in a folder of the machine's files (folders are where files are), or null. */
function folder(files: MachineFiles, path: string): string[] | null {
  const prefix = path === '/' ? '/' : `${path}/`;
  const names = new Set<string>();
  for (const file of files.keys()) {
    if (file.startsWith(prefix)) names.add(file.slice(prefix.length).split('/')[0]!);
  }
  return names.size ? [...names].sort() : null;
}

/** A file's lines as `cat` shows them (the last line break ends the last line). */
const linesOf = (text: string): string[] => text.replace(/\n$/, '').split('\n');

function cat(files: MachineFiles, paths: string[]): string[] {
  return paths.flatMap((given) => {
    const path = withoutTrailingSlash(given);
    const text = files.get(path);
    if (text !== undefined) return linesOf(text);
    return folder(files, path)
      ? [`cat: ${given}: Is a directory`]
      : [`cat: ${given}: No such file or directory`];
  });
}

function ls(files: MachineFiles, args: string[]): string[] {
  // Options change nothing here; the home folder, where it lists without a path, is empty.
  const paths = args.filter((arg) => !arg.startsWith('-'));
  return paths.flatMap((given) => {
    const path = withoutTrailingSlash(given);
    if (files.has(path)) return [given];
    const names = folder(files, path);
    return names ? [names.join('  ')] : [`ls: cannot access '${given}': No such file or directory`];
  });
}

/** VMware Tools' `info-get guestinfo.{key}`, as the reference's vSphere guests read settings. */
function infoGet(files: MachineFiles, request: string | undefined): string[] {
  const key = /^info-get\s+(\S+)$/.exec(request?.trim() ?? '')?.[1];
  if (!key) return ['Unknown command'];
  const value = files.get(fwCfgPath(key));
  return value === undefined ? ['No value found'] : linesOf(value);
}

/**
 * What `topoplay-copy` copies: a file's text when its one argument names a file, else its words
 * (the simulated shell has no pipes to read from); null for any other command.
 */
export function copiedBy(command: string, files: MachineFiles = NO_FILES): string | null {
  const [word, ...args] = words(command);
  if (word !== 'topoplay-copy') return null;
  const file = args.length === 1 ? files.get(withoutTrailingSlash(args[0]!)) : undefined;
  return file ?? args.join(' ');
}

/** What the simulated shell answers to a command line. */
export function answer(
  command: string,
  hostname: string,
  files: MachineFiles = NO_FILES,
): string[] {
  const [word = '', ...args] = words(command);
  switch (word) {
    case '':
      return [];
    case 'help':
      return [
        'commands: help, echo TEXT, hostname, whoami, uname, clear, cat FILE, ls DIR,',
        '  topoplay-copy TEXT or FILE (then Copy in the console),',
        '  vmtoolsd --cmd "info-get guestinfo.KEY", vmware-rpctool "info-get guestinfo.KEY"',
        `guest settings: ${fwCfgPath('guestinfo.KEY')}, ${GUEST_SETTINGS_FILE}`,
      ];
    case 'echo':
      return [args.join(' ')];
    case 'hostname':
      return [hostname];
    case 'whoami':
      return ['player'];
    case 'uname':
      return ['Topoplay-sim'];
    case 'cat':
      return cat(files, args);
    case 'ls':
      return ls(files, args);
    case 'topoplay-copy':
      return [copiedMessage(Buffer.byteLength(copiedBy(command, files) ?? ''))];
    case 'vmtoolsd':
      return args[0] === '--cmd' ? infoGet(files, args[1]) : ['vmtoolsd: simulated machine'];
    case 'vmware-rpctool':
      return infoGet(files, args[0]);
    default:
      return [`sim: ${word}: simulated machine`];
  }
}

/** How an input adds lines: one at a time, or into a batch's array (applyInputs). */
type Append = (t: Terminal, lines: Line[]) => Terminal;

function apply(t: Terminal, input: ConsoleInput, append: Append): Terminal {
  switch (input.kind) {
    case 'char':
      return t.input.length >= MAX_INPUT ? t : { ...t, input: t.input + input.char };
    case 'backspace':
      return { ...t, input: [...t.input].slice(0, -1).join('') };
    case 'enter': {
      const typed: Line = { prompt: t.prompt, text: t.input };
      if (t.input.trim() === 'clear') return { ...t, lines: [], input: '' };
      const copied = copiedBy(t.input, t.files);
      return {
        ...append(t, [typed, ...answer(t.input, t.hostname, t.files).map(output)]),
        input: '',
        ...(copied === null ? {} : { copied }),
      };
    }
    case 'interrupt':
      return { ...append(t, [{ prompt: t.prompt, text: `${t.input}^C` }]), input: '' };
    case 'clear':
      return { ...t, lines: [] };
    case 'ctrlAltDel':
      return append(t, [output('[ctrl-alt-del] reboot requested')]);
  }
}

export const applyInput = (t: Terminal, input: ConsoleInput): Terminal =>
  apply(t, input, appendLines);

/**
 * Where the inputs that can still show begin: every Enter and Ctrl-C adds a line (or clears the
 * screen) and leaves an empty typed line, so what comes before the last MAX_LINES of them is cut
 * from the history whatever it was.
 */
function visibleFrom(inputs: readonly ConsoleInput[]): number {
  let ends = 0;
  for (let i = inputs.length - 1; i >= 0; i--) {
    const kind = inputs[i]!.kind;
    if ((kind === 'enter' || kind === 'interrupt') && ++ends > MAX_LINES) return i + 1;
  }
  return 0;
}

/**
 * The inputs applied in order, with the same result as `inputs.reduce(applyInput, t)`, in time
 * linear in their number: a pasted megabyte of line breaks would otherwise copy the history on
 * every Enter. Inputs whose lines would be cut anyway are skipped, and the batch appends to one
 * array of its own, cut when it doubles.
 */
export function applyInputs(t: Terminal, inputs: readonly ConsoleInput[]): Terminal {
  const from = visibleFrom(inputs);
  let lines: Line[] = from === 0 ? [...t.lines] : [];
  const append: Append = (current, added) => {
    // A cleared screen has a new, empty array of lines.
    if (current.lines !== lines) lines = [...current.lines];
    lines.push(...added);
    if (lines.length >= 2 * MAX_LINES) lines = lines.slice(-MAX_LINES);
    return { ...current, lines };
  };
  const start: Terminal = { ...t, lines, input: from === 0 ? t.input : '' };
  let last = start;
  for (let i = from; i < inputs.length; i++) last = apply(last, inputs[i]!, append);
  return last.lines.length > MAX_LINES ? { ...last, lines: last.lines.slice(-MAX_LINES) } : last;
}
