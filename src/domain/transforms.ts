/**
 * Challenge transforms (wire reference §4.3): each `{key, value}` has a generator spec as its value
 * (`hex:12`, `int:99-999`, `list:2:a b c`, `ipv4:10.0.0.0/24`, a built-in name such as `id`), and
 * resolving the list gives each key a concrete value that replaces `##key##` in the challenge,
 * guest settings and template details. Pure: randomness comes from the caller (crypto on the
 * server, Math.random for the editor's preview, a seeded generator in tests).
 */

export interface Transform {
  key: string;
  value: string;
}

/** A source of randomness. */
export interface Random {
  /** `n` random bytes (each 0..255). */
  bytes(n: number): Uint8Array;
  /** A random integer in [min, maxExclusive); `min` when the range is empty. */
  int(min: number, maxExclusive: number): number;
}

/** What the gamespace being registered contributes to the built-in names. */
export interface TransformContext {
  gamespaceId: string;
  /** The 0-based variant index. */
  variant: number;
  graderUrl: string;
  /** The plaintext grader key (only its hash is stored). */
  graderKey: string;
}

/** The generator types (spec §5: "The type is one of hex, b64, int, uid, list", plus index). */
export const TRANSFORM_TYPES = ['hex', 'b64', 'int', 'uid', 'list', 'index', 'ipv4'] as const;

/** Names resolved from the gamespace rather than generated. */
export const BUILT_IN_NAMES = [
  'id',
  'variant',
  'app_url',
  'topomojo_url',
  'grader_url',
  'grader_key',
  'api_key',
  'apikey',
] as const;

export const HEX_DEFAULT = 8;
export const B64_DEFAULT = 16;
/** The most characters (hex) or bytes (b64) a generator makes. */
export const GENERATED_MAX = 256;
/** `int` without a range: .NET's Random.Next() range. */
export const INT_MAX = 2_147_483_647;

const HEX = '0123456789abcdef';
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

export const toHex = (bytes: Uint8Array): string =>
  Array.from(bytes, (b) => HEX[b >> 4]! + HEX[b & 15]!).join('');

/** Standard base64 with padding (no Buffer or btoa: this module runs in both programs). */
export function toBase64(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const [a = 0, b = 0, c = 0] = [bytes[i], bytes[i + 1], bytes[i + 2]];
    const n = (a << 16) | (b << 8) | c;
    out += B64[(n >> 18) & 63]! + B64[(n >> 12) & 63]!;
    out += i + 1 < bytes.length ? B64[(n >> 6) & 63]! : '=';
    out += i + 2 < bytes.length ? B64[n & 63]! : '=';
  }
  return out;
}

/** A whole decimal number (optionally negative), else null: "12" yes, "1.5", "x", "" no. */
const wholeNumber = (text: string | undefined): number | null =>
  text !== undefined && /^\s*-?\d+\s*$/.test(text) ? Number(text) : null;

/** A count argument: the default when absent or not a positive number, at most `max`. */
const count = (text: string | undefined, fallback: number, max: number): number => {
  const n = wholeNumber(text);
  return n === null || n <= 0 ? fallback : Math.min(n, max);
};

const words = (text: string): string[] => text.split(' ').filter(Boolean);

/** A GUID in "n" format: 32 hex characters, version 4. */
export function newUid(random: Random): string {
  const bytes = random.bytes(16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  return toHex(bytes);
}

/** N hex characters. The reference makes N/2 bytes, so an odd N lost a character; we keep N. */
function hex(arg: string | undefined, random: Random): string {
  const n = count(arg, HEX_DEFAULT, GENERATED_MAX);
  return toHex(random.bytes(Math.ceil(n / 2))).slice(0, n);
}

/** `int`, `int:max` or `int:min-max`: a random integer in [min, max). */
function int(arg: string | undefined, random: Random): string {
  let min = 0;
  let max = INT_MAX;
  if (arg !== undefined) {
    const range = /^\s*(-?\d+)\s*-\s*(-?\d+)\s*$/.exec(arg);
    if (range) {
      min = Number(range[1]);
      max = Number(range[2]);
    } else {
      max = wholeNumber(arg) ?? INT_MAX;
    }
  }
  return String(max <= min ? min : random.int(min, max));
}

/** `list:a b c` (one word) or `list:N:a b c`: N distinct words in random order. */
function list(args: string[], random: Random): string {
  const pool = words(args[args.length - 1] ?? '');
  const n = Math.min(args.length > 1 ? count(args[0], 1, pool.length) : 1, pool.length);
  const picked: string[] = [];
  for (let i = 0; i < n; i++) picked.push(...pool.splice(random.int(0, pool.length), 1));
  return picked.join(' ');
}

/** `index:N:a b c`: the word at N, clamped; without an integer N, at `current`. */
function index(args: string[], current: number): string {
  const options = words(args[args.length - 1] ?? '');
  if (options.length === 0) return '';
  const n = (args.length > 1 ? wholeNumber(args[0]) : null) ?? current;
  return options[Math.max(0, Math.min(n, options.length - 1))]!;
}

const parseIpv4 = (text: string): number | null => {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  let n = 0;
  for (const part of parts) {
    const octet = wholeNumber(part);
    if (octet === null || octet < 0 || octet > 255) return null;
    n = n * 256 + octet;
  }
  return n;
};

export const formatIpv4 = (n: number): string =>
  [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');

/** The network of a CIDR (`10.1.2.0/24`) as its first address and size, or null. */
export function parseCidr(cidr: string): { network: number; size: number; prefix: number } | null {
  const [address, bits] = cidr.trim().split('/');
  const start = parseIpv4(address ?? '');
  const prefix = bits === undefined ? 32 : wholeNumber(bits);
  if (start === null || prefix === null || prefix < 0 || prefix > 32) return null;
  const size = 2 ** (32 - prefix);
  return { network: start - (start % size), size, prefix };
}

/**
 * A random host address in the network. The network and broadcast addresses are left out when
 * the network has room for hosts between them (/30 and larger); /31 and /32 use what they have.
 */
function ipv4(cidr: string, random: Random): string {
  const net = parseCidr(cidr);
  if (!net) return '';
  const hosts = net.size > 2 ? { first: 1, last: net.size - 2 } : { first: 0, last: net.size - 1 };
  // Two draws: a /0 has more addresses than one draw of a 32-bit integer range holds.
  const offset =
    hosts.last - hosts.first < INT_MAX
      ? random.int(hosts.first, hosts.last + 1)
      : random.int(0, 2 ** 16) * 2 ** 16 + random.int(0, 2 ** 16);
  return formatIpv4(net.network + Math.min(Math.max(offset, hosts.first), hosts.last));
}

/** `app_url`: the grader URL up to its first `/api`. */
const appUrl = (graderUrl: string): string => {
  const at = graderUrl.indexOf('/api');
  return at < 0 ? graderUrl : graderUrl.slice(0, at);
};

/**
 * One generator spec's value. `current` is the last int an `index`-keyed transform resolved to.
 * Anything unknown is generated as `int` (the reference's quirk, kept for compatibility: a typo
 * such as `hx:8` yields a number rather than an error).
 */
export function resolveValue(
  spec: string,
  context: TransformContext,
  random: Random,
  current = 0,
): string {
  const [type = '', ...args] = spec.split(':');
  switch (type) {
    case 'id':
      return context.gamespaceId;
    case 'variant':
      return String(context.variant);
    case 'app_url':
    case 'topomojo_url':
      return appUrl(context.graderUrl);
    case 'grader_url':
      return context.graderUrl;
    case 'grader_key':
    case 'api_key':
    case 'apikey':
      return context.graderKey;
    case 'uid':
      return newUid(random);
    case 'hex':
      return hex(args[0], random);
    case 'b64':
      return toBase64(random.bytes(count(args[0], B64_DEFAULT, GENERATED_MAX)));
    case 'list':
      return list(args, random);
    case 'index':
      return index(args, current);
    case 'ipv4':
      return ipv4(args.join(':'), random);
    default:
      return int(args[0], random);
  }
}

/**
 * Resolves the transforms in order, on a snapshot of the list: every value becomes generated text,
 * and a value of several space-separated words also appends `key_1`..`key_n`, one per word, after
 * the list. An `index` transform without a position uses the int of an earlier transform keyed
 * `index`.
 */
export function resolveTransforms(
  transforms: readonly Transform[],
  context: TransformContext,
  random: Random,
): Transform[] {
  const resolved: Transform[] = [];
  const appended: Transform[] = [];
  let current = 0;
  for (const { key, value } of transforms) {
    const text = resolveValue(value ?? '', context, random, current);
    resolved.push({ key, value: text });
    if (key === 'index' && wholeNumber(text) !== null) current = Number(text);
    const tokens = words(text);
    if (tokens.length > 1)
      tokens.forEach((t, i) => appended.push({ key: `${key}_${i + 1}`, value: t }));
  }
  return [...resolved, ...appended];
}

/** Replaces every `##key##` with its value, transform by transform, as the reference does. */
export function substitute(text: string, transforms: readonly Transform[]): string {
  return transforms.reduce(
    (out, { key, value }) => (key ? out.split(`##${key}##`).join(value) : out),
    text,
  );
}

/** `Math.random` as a Random: good enough for the editor's preview, never for a gamespace. */
export const mathRandom: Random = {
  bytes: (n) => Uint8Array.from({ length: n }, () => Math.floor(Math.random() * 256)),
  int: (min, max) => (max <= min ? min : min + Math.floor(Math.random() * (max - min))),
};

/**
 * Why a transform value is not one the form accepts (spec §5: "type:range" with a known type or a
 * built-in name), or null. The server resolves anything, unknown types as int; the form is
 * stricter so that typos are caught while authoring.
 */
export function transformValueMessage(value: string): string | null {
  const text = value.trim();
  if (!text) return 'A value is required.';
  const [type = '', ...args] = text.split(':');
  if ((BUILT_IN_NAMES as readonly string[]).includes(type)) {
    return args.length === 0 ? null : `'${type}' takes no range.`;
  }
  if (!(TRANSFORM_TYPES as readonly string[]).includes(type)) {
    return `Unknown type '${type}': use hex, b64, int, uid, list, index, ipv4 or a built-in name.`;
  }
  switch (type) {
    case 'hex':
    case 'b64':
      return args.length === 0 || (args.length === 1 && /^\d+$/.test(args[0]!))
        ? null
        : `Write ${type} or ${type}:N.`;
    case 'int':
      return args.length === 0 || (args.length === 1 && /^\d+(-\d+)?$/.test(args[0]!))
        ? null
        : 'Write int, int:max or int:min-max.';
    case 'uid':
      return args.length === 0 ? null : "'uid' takes no range.";
    case 'list':
    case 'index':
      return args.length >= 1 && args.length <= 2 && words(args[args.length - 1]!).length > 0
        ? null
        : `Write ${type}:a b c or ${type}:N:a b c.`;
    default:
      return args.length === 1 && parseCidr(args[0]!) !== null
        ? null
        : 'Write ipv4:network/prefix, e.g. ipv4:192.168.22.0/24.';
  }
}

/** `##key##` as the reference writes a placeholder: a key of word characters, dashes or colons. */
const PLACEHOLDER = /##([\w:./-]+)##/g;

/**
 * The distinct placeholders written in `text`, in order of first use. The guide (the workspace's
 * document) is shown to players as written, so the Document tab warns of the ones it holds: only
 * the challenge and the templates' guest settings are substituted (wire reference §4.5).
 */
export function placeholdersIn(text: string): string[] {
  return [...new Set([...text.matchAll(PLACEHOLDER)].map((match) => match[0]))];
}
