/**
 * Request and reply validation for the Topoplay PVE API SIMULATOR (tests only).
 *
 * The simulator must refuse what a real Proxmox VE refuses, with PVE's status codes and messages,
 * so that the driver is tested against the API as published and not against our guesses. This
 * module reads our own compact schema (pve-api-schema.json, written from the facts in
 * proxmox/pve-docs' API viewer data) and checks:
 * - requests: route to an endpoint (501 when PVE has no such method), then every parameter,
 *   path parameters included (400 "Parameter verification failed." with one reason per name);
 * - replies: the `data` a handler returns against the endpoint's declared return shape, so the
 *   simulator in strict mode cannot drift from what PVE sends.
 * Checks mirror PVE's own parameter verification: the first failure per name wins, booleans
 * arrive as 1/0 (or true/false, yes/no, on/off), key=value strings (net0, ide2, ...) are parsed
 * and their keys checked, and formats we do not implement are accepted as PVE's loose cousin would.
 */
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';

/** A checked parameter; a list for PVE's `array` parameters (the key repeated in a form). */
export type ParamValue = string | number | boolean | readonly string[];

/** A parameter as sent: a repeated key gives a list. */
export type RawParam = string | readonly string[];

export interface RequestCheck {
  ok: true;
  /** The matched endpoint, e.g. 'POST /nodes/{node}/qemu/{vmid}/clone'. */
  endpoint: string;
  pathParams: Record<string, string>;
  /** Path and body/query parameters together, typed: integers and numbers as numbers, booleans as booleans. */
  params: Record<string, ParamValue>;
}

export interface RequestRefusal {
  ok: false;
  status: 400 | 501;
  message: string;
  errors: Record<string, string>;
}

type ScalarType = 'string' | 'integer' | 'number' | 'boolean';
type ShapeType = ScalarType | 'null' | 'object' | 'array' | 'any';

/**
 * One parameter, or one key of a key=value property string. `array`: a list of strings (PVE's
 * array parameters, such as agent/exec's `command`), the key repeated in a form.
 */
interface ValueSpec {
  type: ScalarType | 'array';
  optional?: boolean;
  enum?: string[];
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  /** JavaScript regex source; PVE anchors it at both ends. */
  pattern?: string;
  format?: string;
  /** Name of a key=value format in `propertyStrings`. */
  propertyString?: string;
  /** Another parameter that must be present when this one is. */
  requires?: string;
  default?: ParamValue;
}

/** A key that stands for another: `virtio=<mac>` sets macaddr to the value and model to 'virtio'. */
interface AliasSpec {
  alias: string;
  keyAlias?: string;
}

interface PropertyStringSpec {
  /** The key a bare value (no `=`) belongs to, e.g. `virtio` alone is model=virtio. */
  defaultKey?: string;
  keys: Record<string, ValueSpec | AliasSpec>;
}

/** Pattern-named properties: net0..net31 share one spec. */
interface Family<T> {
  from: number;
  to: number;
  value: T;
}

interface ReplyShape {
  type: ShapeType;
  optional?: boolean;
  enum?: string[];
  properties?: Record<string, ReplyShape>;
  families?: Record<string, Family<ReplyShape>>;
  /** Only an explicit false forbids keys the schema does not list. */
  additionalProperties?: boolean;
  items?: ReplyShape;
}

interface EndpointSpec {
  /** The last path parameter takes the rest of the path, slashes included (volume IDs). */
  restOfPath?: boolean;
  params: Record<string, ValueSpec>;
  families?: Record<string, Family<ValueSpec>>;
  additionalProperties: boolean;
  returns: ReplyShape;
}

interface ApiSchema {
  formatAliases: Record<string, string>;
  propertyStrings: Record<string, PropertyStringSpec>;
  endpoints: Record<string, EndpointSpec>;
}

interface Route {
  endpoint: string;
  method: string;
  segments: string[];
  restOfPath: boolean;
}

type Checked = { value: ParamValue } | { error: string };

const MISSING = 'property is missing and it is not optional';
const NOT_DEFINED =
  'property is not defined in schema and the schema does not allow additional properties';
const VERIFICATION_FAILED = 'Parameter verification failed.';

const SCHEMA = loadSchema();
const ROUTES = buildRoutes(SCHEMA.endpoints);

/** The JSON is ours and checked in, so a shape check of its top level is enough at this boundary. */
function loadSchema(): ApiSchema {
  const parsed: unknown = JSON.parse(
    readFileSync(new URL('./pve-api-schema.json', import.meta.url), 'utf8'),
  );
  if (!isRecord(parsed) || !isRecord(parsed.endpoints) || !isRecord(parsed.propertyStrings)) {
    throw new Error('PVE simulator: pve-api-schema.json is not a schema file');
  }
  return parsed as unknown as ApiSchema;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Literal segments are preferred over `{param}` ones, as a router tries its fixed children first. */
function buildRoutes(specs: Record<string, EndpointSpec>): Route[] {
  const routes = Object.entries(specs).map(([endpoint, spec]) => {
    const [method = '', template = ''] = endpoint.split(' ');
    const segments = template.split('/').filter(Boolean);
    return { endpoint, method, segments, restOfPath: spec.restOfPath === true };
  });
  const literals = (route: Route): number =>
    route.segments.filter((s) => !s.startsWith('{')).length;
  return routes.sort((a, b) => literals(b) - literals(a));
}

/** Every endpoint the schema knows, as 'METHOD /path/{param}'. */
export function endpoints(): string[] {
  return Object.keys(SCHEMA.endpoints);
}

/**
 * Checks one request as PVE would before running its handler. `path` is relative to /api2/json
 * (a leading /api2/json is accepted too); `params` are the query or form parameters as sent.
 */
export function checkRequest(
  method: string,
  path: string,
  params: Record<string, RawParam>,
): RequestCheck | RequestRefusal {
  const verb = method.toUpperCase();
  const relative = relativePath(path);
  const matched = matchRoute(verb, relative);
  if (!matched) {
    return {
      ok: false,
      status: 501,
      message: `Method '${verb} ${relative}' not implemented`,
      errors: {},
    };
  }
  const spec = endpointSpec(matched.endpoint);
  // PVE merges the path's parameters into the call's; the path's value is the one the handler sees.
  const given: Record<string, RawParam> = { ...params, ...matched.pathParams };
  const { typed, errors } = checkParams(spec, given);
  if (Object.keys(errors).length > 0) {
    return { ok: false, status: 400, message: VERIFICATION_FAILED, errors };
  }
  return { ok: true, endpoint: matched.endpoint, pathParams: matched.pathParams, params: typed };
}

function relativePath(path: string): string {
  const withoutQuery = path.split('?')[0] ?? '';
  const relative = withoutQuery.replace(/^\/api2\/json(?=\/|$)/, '');
  const trimmed = relative.replace(/\/+$/, '');
  return trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
}

function matchRoute(
  method: string,
  path: string,
): { endpoint: string; pathParams: Record<string, string> } | undefined {
  const segments = path.split('/').filter(Boolean).map(decodeSegment);
  for (const route of ROUTES) {
    if (route.method !== method) continue;
    const pathParams = bindSegments(route, segments);
    if (pathParams) return { endpoint: route.endpoint, pathParams };
  }
  return undefined;
}

/**
 * The path parameters when the path fits the route. As PVE's router does below
 * /storage/{storage}/content (its fragmentDelimiter), a rest-of-path route's last parameter takes
 * every remaining segment: `local:iso/x.iso` arrives with its slash, encoded or not.
 */
function bindSegments(route: Route, actual: string[]): Record<string, string> | undefined {
  const template = route.segments;
  const fits = route.restOfPath
    ? actual.length >= template.length
    : actual.length === template.length;
  if (!fits) return undefined;
  const bound: Record<string, string> = {};
  for (const [i, part] of template.entries()) {
    const rest = route.restOfPath && i === template.length - 1;
    const value = rest ? actual.slice(i).join('/') : (actual[i] ?? '');
    const param = /^\{(.+)\}$/.exec(part)?.[1];
    if (param !== undefined) bound[param] = value;
    else if (part !== value) return undefined;
  }
  return bound;
}

/** UPIDs and volids carry ':' and '@', which clients may percent-encode in the path. */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function endpointSpec(endpoint: string): EndpointSpec {
  const spec = SCHEMA.endpoints[endpoint];
  if (!spec) throw new Error(`PVE simulator: no schema for ${endpoint}`);
  return spec;
}

function checkParams(
  spec: EndpointSpec,
  given: Record<string, RawParam>,
): { typed: Record<string, ParamValue>; errors: Record<string, string> } {
  const typed: Record<string, ParamValue> = {};
  const errors: Record<string, string> = {};
  for (const [name, raw] of Object.entries(given)) {
    const valueSpec = paramSpec(spec, name);
    if (!valueSpec) {
      if (spec.additionalProperties) typed[name] = raw;
      else errors[name] = NOT_DEFINED;
      continue;
    }
    const checked = checkValue(name, raw, valueSpec);
    if ('error' in checked) errors[name] = checked.error;
    else typed[name] = checked.value;
  }
  for (const [name, valueSpec] of Object.entries(spec.params)) {
    const present = Object.hasOwn(given, name);
    if (!present && !valueSpec.optional) errors[name] ??= MISSING;
    const needed = valueSpec.requires;
    if (present && needed !== undefined && !Object.hasOwn(given, needed)) {
      errors[needed] ??= `missing property - '${name}' requires this property`;
    }
  }
  return { typed, errors };
}

function paramSpec(spec: EndpointSpec, name: string): ValueSpec | undefined {
  if (Object.hasOwn(spec.params, name)) return spec.params[name];
  return familyMember(spec.families, name);
}

/** `net7` belongs to family `net` when 7 is in its range; `net07` does not (PVE names have no padding). */
function familyMember<T>(
  families: Record<string, Family<T>> | undefined,
  name: string,
): T | undefined {
  const match = /^([a-z_]+)(0|[1-9]\d*)$/.exec(name);
  if (!families || !match) return undefined;
  const [, base = '', digits = ''] = match;
  const family = Object.hasOwn(families, base) ? families[base] : undefined;
  const index = Number(digits);
  return family && index >= family.from && index <= family.to ? family.value : undefined;
}

/** Type first, then the string or number limits, then the enumeration: PVE reports the first failure. */
function checkValue(path: string, given: RawParam, spec: ValueSpec): Checked {
  if (spec.type === 'array') return { value: typeof given === 'string' ? [given] : given };
  // A scalar sent more than once reaches PVE's check as a list, which no scalar type takes.
  if (typeof given !== 'string') return { error: `type check ('${spec.type}') failed - got ARRAY` };
  const raw = given;
  const typed = parseTyped(spec.type, raw);
  if (typed === undefined) return { error: `type check ('${spec.type}') failed - got '${raw}'` };
  const problem =
    typeof typed === 'string' ? stringProblem(path, typed, spec) : numberProblem(typed, spec);
  if (problem) return { error: problem };
  if (spec.enum && !spec.enum.includes(String(raw))) {
    return {
      error: `value '${raw}' does not have a value in the enumeration '${spec.enum.join(', ')}'`,
    };
  }
  return { value: typed };
}

function parseTyped(type: ScalarType, raw: string): string | number | boolean | undefined {
  switch (type) {
    case 'integer':
      return /^-?\d+$/.test(raw) ? Number(raw) : undefined;
    case 'number':
      return /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/.test(raw) ? Number(raw) : undefined;
    case 'boolean':
      return parseBoolean(raw);
    case 'string':
      return raw;
  }
}

function parseBoolean(raw: string): boolean | undefined {
  if (/^(?:1|true|yes|on)$/i.test(raw)) return true;
  if (/^(?:0|false|no|off)$/i.test(raw)) return false;
  return undefined;
}

function numberProblem(value: number | boolean, spec: ValueSpec): string | undefined {
  if (typeof value !== 'number') return undefined;
  if (spec.minimum !== undefined && value < spec.minimum) {
    return `value must have a minimum value of ${spec.minimum}`;
  }
  if (spec.maximum !== undefined && value > spec.maximum) {
    return `value must have a maximum value of ${spec.maximum}`;
  }
  return undefined;
}

function stringProblem(path: string, value: string, spec: ValueSpec): string | undefined {
  if (spec.maxLength !== undefined && value.length > spec.maxLength) {
    return `value may only be ${spec.maxLength} characters long`;
  }
  if (spec.pattern !== undefined && !new RegExp(`^(?:${spec.pattern})$`).test(value)) {
    return 'value does not match the regex pattern';
  }
  const propertyString = spec.propertyString ?? aliasedPropertyString(spec.format);
  const reason = propertyString
    ? propertyStringProblem(path, value, propertyString)
    : formatProblem(spec.format, value);
  return reason === undefined ? undefined : `invalid format - ${reason}`;
}

function aliasedPropertyString(format: string | undefined): string | undefined {
  return format !== undefined && Object.hasOwn(SCHEMA.formatAliases, format)
    ? SCHEMA.formatAliases[format]
    : undefined;
}

/**
 * Parses `virtio=BC:24:11:00:00:01,bridge=vmbr0,firewall=1` against a key=value format and checks
 * each key as a parameter of its own; problems are reported under `net0.bridge` style names.
 */
function propertyStringProblem(
  path: string,
  value: string,
  formatName: string,
): string | undefined {
  const format = SCHEMA.propertyStrings[formatName];
  if (!format) return undefined;
  const parsed = splitPropertyString(value, format);
  if (typeof parsed === 'string') return parsed;
  const problems = propertyStringKeyProblems(path, parsed, format);
  if (problems.length === 0) return undefined;
  return ['format error', ...problems].join('\n');
}

function splitPropertyString(
  value: string,
  format: PropertyStringSpec,
): Record<string, string> | string {
  const result: Record<string, string> = {};
  for (const part of value.split(',')) {
    if (part.trim() === '') continue;
    const assigned = assignPart(result, part, format);
    if (assigned !== undefined) return assigned;
  }
  return result;
}

/** Adds one `key=value` (or bare default-key value) to `result`; returns a problem, if any. */
function assignPart(
  result: Record<string, string>,
  part: string,
  format: PropertyStringSpec,
): string | undefined {
  const eq = part.indexOf('=');
  if (eq < 0) {
    if (!format.defaultKey) return 'value without key, but schema does not define a default key';
    return setOnce(result, format.defaultKey, part);
  }
  if (eq === 0) return 'missing key in comma-separated list property';
  let key = part.slice(0, eq);
  const keySpec = Object.hasOwn(format.keys, key) ? format.keys[key] : undefined;
  if (keySpec && 'alias' in keySpec) {
    if (keySpec.keyAlias) {
      const clash = setOnce(result, keySpec.keyAlias, key);
      if (clash) return clash;
    }
    key = keySpec.alias;
  }
  return setOnce(result, key, part.slice(eq + 1));
}

function setOnce(result: Record<string, string>, key: string, value: string): string | undefined {
  if (Object.hasOwn(result, key)) return `duplicate key in comma-separated list property: ${key}`;
  result[key] = value;
  return undefined;
}

function propertyStringKeyProblems(
  path: string,
  parsed: Record<string, string>,
  format: PropertyStringSpec,
): string[] {
  const problems: string[] = [];
  for (const [key, keySpec] of Object.entries(format.keys)) {
    if ('alias' in keySpec) continue;
    const raw = Object.hasOwn(parsed, key) ? parsed[key] : undefined;
    if (raw === undefined) {
      if (!keySpec.optional) problems.push(`${path}.${key}: ${MISSING}`);
      continue;
    }
    const checked = checkValue(`${path}.${key}`, raw, keySpec);
    if ('error' in checked) problems.push(`${path}.${key}: ${checked.error}`);
  }
  for (const key of Object.keys(parsed)) {
    const keySpec = Object.hasOwn(format.keys, key) ? format.keys[key] : undefined;
    if (!keySpec || 'alias' in keySpec) problems.push(`${path}.${key}: ${NOT_DEFINED}`);
  }
  return problems;
}

// ---- Named formats ---------------------------------------------------------------------------
// Our own statements of what PVE's registered formats accept, for the formats our endpoints use.
// A format not listed here is accepted, as the brief for the simulator asks.

const DNS_LABEL = '[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?';
const STORAGE_ID = '[a-z][a-z0-9._-]*[a-z0-9]';
const POOL_PART = '[A-Za-z0-9_-]+';

type FormatCheck = (value: string) => string | undefined;

const unless =
  (re: { test(value: string): boolean }, reason: (value: string) => string): FormatCheck =>
  (value) =>
    re.test(value) ? undefined : reason(value);

/** SDN zone and vnet ids: a letter, then letters or digits, at most 8 characters in all. */
function sdnId(kind: string): FormatCheck {
  return (value) => {
    if (!/^[a-z][a-z0-9]*[a-z0-9]$/.test(value)) {
      return `${kind} ID '${value}' contains illegal characters`;
    }
    return value.length > 8 ? `${kind} ID '${value}' can't be more than 8 characters` : undefined;
  };
}

/** A unicast MAC: six hex pairs, and the first octet's lowest bit clear. */
function macAddress(value: string): string | undefined {
  const ok =
    /^[0-9a-f]{2}(?::[0-9a-f]{2}){5}$/i.test(value) && (parseInt(value.slice(0, 2), 16) & 1) === 0;
  return ok ? undefined : 'value does not look like a valid unicast MAC address';
}

const volumeId = unless(
  new RegExp(`^${STORAGE_ID}:.+$`, 'i'),
  (v) => `unable to parse volume ID '${v}'`,
);

/** A drive's file: a volume id, or one of the non-volume values qemu-server allows. */
function volumeIdOrPath(value: string): string | undefined {
  if (value === 'none' || value === 'cdrom' || value.startsWith('/')) return undefined;
  return volumeId(value);
}

/** Tags separated by ';', ',' or spaces; each starts with a letter, digit or '_' (any case). */
function tagList(value: string): string | undefined {
  const bad = value
    .split(/[;,\s]+/)
    .filter(Boolean)
    .find((tag) => !/^[a-z0-9_][a-z0-9_+.-]*$/i.test(tag));
  return bad === undefined ? undefined : `invalid tag '${bad}'`;
}

const isIpv4 = (value: string): boolean => isIP(value) === 4;
const isIpv6 = (value: string): boolean => isIP(value) === 6;

/** An address in CIDR form of one family, or one of the words PVE's format takes instead. */
function ipConfig(family: 4 | 6, words: string[]): FormatCheck {
  return (value) => {
    if (words.includes(value)) return undefined;
    const [address = '', prefix = '', ...rest] = value.split('/');
    const max = family === 4 ? 32 : 128;
    const ok =
      isIP(address) === family &&
      rest.length === 0 &&
      /^\d{1,3}$/.test(prefix) &&
      Number(prefix) <= max;
    return ok ? undefined : `value does not look like a valid ipv${family} network configuration`;
  };
}

const FORMATS: Record<string, FormatCheck> = {
  'pve-vmid': unless(/^[1-9][0-9]{2,8}$/, () => 'value does not look like a valid VM ID'),
  'pve-node': unless(
    new RegExp(`^${DNS_LABEL}$`),
    () => 'value does not look like a valid node name',
  ),
  'dns-name': unless(
    new RegExp(`^(?:${DNS_LABEL}\\.)*${DNS_LABEL}$`),
    () => 'value does not look like a valid DNS name',
  ),
  'pve-storage-id': unless(
    new RegExp(`^${STORAGE_ID}$`, 'i'),
    (v) => `storage ID '${v}' contains illegal characters`,
  ),
  'pve-configid': unless(/^[a-z][a-z0-9_-]+$/i, (v) => `invalid configuration ID '${v}'`),
  // Pools may nest up to three levels: parent/child/grandchild.
  'pve-poolid': unless(
    new RegExp(`^${POOL_PART}(?:/${POOL_PART}){0,2}$`),
    (v) => `invalid pool ID '${v}'`,
  ),
  'pve-sdn-vnet-id': sdnId('vnet'),
  'pve-sdn-zone-id': sdnId('zone'),
  'pve-tag-list': tagList,
  // A NIC's bridge: a Linux bridge such as vmbr0 or an SDN vnet id.
  'pve-bridge-id': unless(/^[\w.-]+$/, (v) => `'${v}' is not a valid bridge name`),
  'mac-addr': macAddress,
  'pve-volume-id': volumeId,
  'pve-volume-id-or-qm-path': volumeIdOrPath,
  // What PVE's pve_verify_urlencoded lets through: encodeURIComponent's output (sshkeys).
  urlencoded: unless(/^[-%a-zA-Z0-9_.!~*'()]*$/, (v) => `invalid urlencoded string: ${v}`),
  ipv4: unless({ test: isIpv4 }, () => 'value does not look like a valid IPv4 address'),
  ipv6: unless({ test: isIpv6 }, () => 'value does not look like a valid IPv6 address'),
  address: unless(
    { test: (v) => isIP(v) !== 0 },
    () => 'value does not look like a valid IP address',
  ),
  'pve-ipv4-config': ipConfig(4, ['dhcp', 'manual']),
  'pve-ipv6-config': ipConfig(6, ['dhcp', 'auto', 'manual']),
};

/** `xyz-list` formats are lists of `xyz` values separated by commas, semicolons or spaces. */
function formatProblem(format: string | undefined, value: string): string | undefined {
  if (format === undefined) return undefined;
  const direct = FORMATS[format];
  if (direct) return direct(value);
  const item = format.endsWith('-list') ? FORMATS[format.slice(0, -'-list'.length)] : undefined;
  if (!item) return undefined;
  for (const part of value.split(/[;,\s]+/).filter(Boolean)) {
    const problem = item(part);
    if (problem) return problem;
  }
  return undefined;
}

// ---- Replies ---------------------------------------------------------------------------------

/**
 * Problems of a reply's `data` against the endpoint's return shape ([] when it conforms): the
 * type, properties the data marks as not optional, property types and enumerations, and keys an
 * object that forbids additional properties does not list. Like PVE's Perl-side check, integers
 * and numbers may arrive as numeric strings (PVE sends vncproxy's port and nextid that way), and
 * booleans as 0/1; a missing or null optional value is fine.
 */
export function checkReply(endpoint: string, data: unknown): string[] {
  const spec = SCHEMA.endpoints[endpoint];
  if (!spec) return [`no schema for endpoint '${endpoint}'`];
  const problems: string[] = [];
  checkShape('data', data, spec.returns, problems);
  return problems;
}

function checkShape(path: string, value: unknown, shape: ReplyShape, problems: string[]): void {
  if (value === null || value === undefined) {
    if (shape.type !== 'null' && shape.type !== 'any' && !shape.optional) {
      problems.push(`${path}: ${MISSING}`);
    }
    return;
  }
  if (!hasType(value, shape.type)) {
    problems.push(`${path}: type check ('${shape.type}') failed - got ${describe(value)}`);
    return;
  }
  if (shape.enum && !shape.enum.includes(String(value))) {
    problems.push(
      `${path}: value '${String(value)}' does not have a value in the enumeration '${shape.enum.join(', ')}'`,
    );
  }
  if (Array.isArray(value) && shape.items) {
    const items = shape.items;
    value.forEach((item, i) => checkShape(`${path}[${i}]`, item, items, problems));
  }
  if (isRecord(value)) checkObject(path, value, shape, problems);
}

function checkObject(
  path: string,
  value: Record<string, unknown>,
  shape: ReplyShape,
  problems: string[],
): void {
  const properties = shape.properties ?? {};
  for (const [key, propertyShape] of Object.entries(properties)) {
    checkShape(`${path}.${key}`, value[key], propertyShape, problems);
  }
  for (const [key, item] of Object.entries(value)) {
    if (Object.hasOwn(properties, key)) continue;
    const member = familyMember(shape.families, key);
    if (member) checkShape(`${path}.${key}`, item, member, problems);
    else if (shape.additionalProperties === false) problems.push(`${path}.${key}: ${NOT_DEFINED}`);
  }
}

function hasType(value: unknown, type: ShapeType): boolean {
  switch (type) {
    case 'any':
      return true;
    case 'null':
      return false;
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return Number.isInteger(value) || (typeof value === 'string' && /^-?\d+$/.test(value));
    case 'number':
      return (
        (typeof value === 'number' && Number.isFinite(value)) ||
        (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)))
      );
    case 'boolean':
      return typeof value === 'boolean' || value === 0 || value === 1;
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isRecord(value);
  }
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return `'${String(value)}'`;
}
