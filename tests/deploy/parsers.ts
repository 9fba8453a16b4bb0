// Readers for the deployment files (Dockerfile, nginx.conf, systemd unit, env files, compose
// interpolation), just enough of each format for what tests/deploy checks. None of the real tools
// (docker, nginx, systemd) runs in the test suite, so these stand in for their parsers.

export interface DockerInstruction {
  keyword: string;
  args: string;
}

export interface DockerStage {
  /** The image after FROM, variables as written (`node:${NODE_VERSION}-bookworm-slim`). */
  from: string;
  name?: string;
  instructions: DockerInstruction[];
}

/** Instructions by stage; global ARGs (before the first FROM) in `args`. */
export function parseDockerfile(text: string): {
  args: Map<string, string>;
  stages: DockerStage[];
} {
  const logical = text
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  const args = new Map<string, string>();
  const stages: DockerStage[] = [];
  for (const line of logical) {
    const [, keyword = '', rest = ''] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    const upper = keyword.toUpperCase();
    if (upper === 'FROM') {
      const [from = '', as, name] = rest.split(/\s+/);
      stages.push({
        from,
        ...(as?.toUpperCase() === 'AS' && name ? { name } : {}),
        instructions: [],
      });
    } else if (stages.length === 0) {
      if (upper === 'ARG') {
        const [key = '', value = ''] = rest.split('=', 2);
        args.set(key, value);
      }
    } else {
      stages.at(-1)?.instructions.push({ keyword: upper, args: rest.replace(/\s+/g, ' ') });
    }
  }
  return { args, stages };
}

/** The options (`--from=build`) and words of a COPY, ENV or similar instruction. */
export function splitOptions(args: string): { options: Map<string, string>; words: string[] } {
  const options = new Map<string, string>();
  const words: string[] = [];
  for (const word of args.split(' ')) {
    const option = /^--([a-z-]+)(?:=(.*))?$/.exec(word);
    if (option && words.length === 0) options.set(option[1] ?? '', option[2] ?? '');
    else words.push(word);
  }
  return { options, words };
}

/** `ENV A=1 B=2` (the only form the Dockerfile uses) as pairs. */
export function envPairs(args: string): Array<[string, string]> {
  return args.split(' ').map((pair) => {
    const [key = '', value = ''] = pair.split(/=(.*)/s, 2);
    return [key, value.replace(/^"(.*)"$/, '$1')];
  });
}

export interface NginxBlock {
  name: string;
  params: string[];
  directives: Array<{ name: string; params: string[] }>;
  blocks: NginxBlock[];
}

/** nginx's configuration syntax: directives ending in `;`, blocks in braces, `#` comments. */
export function parseNginx(text: string): NginxBlock {
  const tokens =
    text
      .replace(/#[^\n]*/g, '')
      .match(/'[^']*'|"[^"]*"|[{};]|[^\s{};]+/g)
      ?.map((t) => t.replace(/^(['"])(.*)\1$/, '$2')) ?? [];
  const root: NginxBlock = { name: '', params: [], directives: [], blocks: [] };
  const stack = [root];
  let words: string[] = [];
  for (const token of tokens) {
    const current = stack.at(-1) as NginxBlock;
    if (token === ';') {
      const [name = '', ...params] = words;
      current.directives.push({ name, params });
      words = [];
    } else if (token === '{') {
      const [name = '', ...params] = words;
      const block: NginxBlock = { name, params, directives: [], blocks: [] };
      current.blocks.push(block);
      stack.push(block);
      words = [];
    } else if (token === '}') {
      stack.pop();
    } else {
      words.push(token);
    }
  }
  return root;
}

/** An nginx time (`1h`, `35m`, `60s`, `60`) in seconds. */
export function nginxSeconds(text: string): number {
  const units: Record<string, number> = { '': 1, s: 1, m: 60, h: 3600, d: 86400 };
  const match = /^(\d+)(s|m|h|d|)$/.exec(text);
  if (!match) throw new Error(`not an nginx time: ${text}`);
  return Number(match[1]) * (units[match[2] ?? ''] ?? Number.NaN);
}

/** An nginx size (`4m`, `49m`, `1g`, `512k`, `1024`) in bytes. */
export function nginxBytes(text: string): number {
  const units: Record<string, number> = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 };
  const match = /^(\d+)([kmg]?)$/i.exec(text);
  if (!match) throw new Error(`not an nginx size: ${text}`);
  return Number(match[1]) * (units[(match[2] ?? '').toLowerCase()] ?? Number.NaN);
}

/** A Docker/compose duration (`30s`, `1m30s`) in seconds. */
export function durationSeconds(text: string): number {
  const units: Record<string, number> = { h: 3600, m: 60, s: 1, ms: 0.001 };
  let total = 0;
  for (const [, value, unit] of text.matchAll(/(\d+)(ms|h|m|s)/g)) {
    total += Number(value) * (units[unit ?? ''] ?? Number.NaN);
  }
  return total;
}

/** A systemd unit: section name to its settings, a key set several times keeps every value. */
export function parseUnit(text: string): Map<string, Map<string, string[]>> {
  const sections = new Map<string, Map<string, string[]>>();
  let section: Map<string, string[]> | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      section = new Map();
      sections.set(header[1] ?? '', section);
      continue;
    }
    const [key = '', value = ''] = line.split(/=(.*)/s, 2);
    const values = section?.get(key.trim()) ?? [];
    values.push(value.trim());
    section?.set(key.trim(), values);
  }
  return sections;
}

/** `KEY=value` lines of an env file, comments and blank lines left out. */
export function parseEnvFile(text: string): Map<string, string> {
  const pairs = new Map<string, string>();
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const [key = '', value = ''] = line.split(/=(.*)/s, 2);
    pairs.set(key.trim(), value);
  }
  return pairs;
}

/** The variables a compose value interpolates (`${NAME}`, `${NAME:-default}`, `${NAME:?error}`). */
export function interpolated(value: string): string[] {
  return [...value.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1] ?? '');
}

/**
 * A compose value with its interpolations done as Compose does them, from `given` (what .env
 * would hold): `:-` gives the default when the variable is unset or empty, `:?` fails then.
 */
export function interpolate(value: string, given: Record<string, string>): string {
  return value.replace(
    /\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}/g,
    (_, name: string, op: string | undefined, word: string) => {
      const set = given[name];
      const empty = set === undefined || (op?.startsWith(':') && set === '');
      if (!empty) return set ?? '';
      if (op?.endsWith('?')) throw new Error(`${name}: ${word}`);
      return op?.endsWith('-') ? word : '';
    },
  );
}
