// The settings `npm run sim:proxmox` prints, as lines a POSIX shell takes as they are: `export`
// with each value in single quotes (a token id holds `!`, which an interactive shell would
// otherwise expand from its history inside double quotes).

/** `text` as one word of a POSIX shell, whatever it holds. */
export const shellWord = (text: string): string =>
  /^[\w@%+=:,./-]+$/.test(text) && !text.includes('!') ? text : `'${text.replace(/'/g, `'\\''`)}'`;

/** One `export NAME=value` line per setting, in the order given. */
export function exportLines(settings: ReadonlyArray<readonly [string, string]>): string[] {
  return settings.map(([name, value]) => `export ${name}=${shellWord(value)}`);
}
