/**
 * What makes a template's `detail` deployable (wire reference §2.4): the VmTemplate JSON the
 * hypervisor deploys from. The server reads it leniently (case-insensitive names, a wrong type
 * read as empty), so a mistake saved today would only show when a machine deploys with no disk,
 * 0 GB of memory or a CPU the hypervisor cannot parse. The admin template form and the
 * template-detail routes both check it with this rule before saving, and name what is wrong.
 */

type Kind = 'string' | 'integer' | 'boolean' | 'list';

/** The properties of a VmTemplate, as the deploy reads them (server/core/machineSpecs.ts). */
const VM_TEMPLATE: Record<string, Kind> = {
  Id: 'string',
  Name: 'string',
  TopoId: 'string',
  Cpu: 'string',
  Guest: 'string',
  Source: 'string',
  Iso: 'string',
  Floppy: 'string',
  Version: 'string',
  IsolationTag: 'string',
  HostAffinity: 'boolean',
  UseUplinkSwitch: 'boolean',
  Ram: 'integer',
  VideoRam: 'integer',
  Adapters: 'integer',
  Delay: 'integer',
  AutoStart: 'boolean',
  Template: 'string',
  ParentTemplate: 'string',
  Eth: 'list',
  Disks: 'list',
  GuestSettings: 'list',
  // Ours, beside the reference's: "uefi" boots the machine with UEFI (src/domain/templateFirmware).
  Firmware: 'string',
};

const LISTS: Record<string, Record<string, Kind>> = {
  Eth: {
    Id: 'integer',
    Net: 'string',
    Key: 'string',
    Type: 'string',
    Mac: 'string',
    Ip: 'string',
    Vlan: 'integer',
  },
  Disks: {
    Id: 'integer',
    Path: 'string',
    Source: 'string',
    Controller: 'string',
    Size: 'integer',
    Status: 'integer',
  },
  GuestSettings: { Key: 'string', Value: 'string' },
};

/** "{sockets}x{cores}", or a plain count of CPUs. */
const CPU = /^[1-9]\d*(x[1-9]\d*)?$/i;

const KIND_TEXT: Record<Kind, string> = {
  string: 'a string',
  integer: 'a whole number',
  boolean: 'true or false',
  list: 'a list',
};

function hasKind(value: unknown, kind: Kind): boolean {
  // null is how the server writes an empty value, and the deploy reads it as empty.
  if (value === null) return true;
  switch (kind) {
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return Number.isInteger(value) && (value as number) >= 0;
    case 'boolean':
      return typeof value === 'boolean';
    case 'list':
      return Array.isArray(value);
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Whether a property name the deploy does not read is a problem. The form says so ('checked': a
 * misspelt `Dsks` would otherwise be dropped without a word); the server, like TopoMojo, ignores
 * such names ('ignored'), so that a detail written for the reference is never refused for them.
 */
export type Names = 'checked' | 'ignored';

/** Property names are matched as the server reads them: ignoring case. */
function canonical(shape: Record<string, Kind>, key: string): string | undefined {
  return Object.keys(shape).find((k) => k.toLowerCase() === key.toLowerCase());
}

/** The problems of one object against its shape; `where` prefixes each message. */
function objectProblems(
  value: Record<string, unknown>,
  shape: Record<string, Kind>,
  where: string,
  names: Names,
): string[] {
  const problems: string[] = [];
  for (const [key, v] of Object.entries(value)) {
    const name = canonical(shape, key);
    if (!name) {
      if (names === 'ignored') continue;
      problems.push(
        `${where}"${key}" is not a property (expected ${Object.keys(shape).join(', ')})`,
      );
    } else if (!hasKind(v, shape[name]!)) {
      problems.push(`${where}${name} must be ${KIND_TEXT[shape[name]!]}, not ${JSON.stringify(v)}`);
    }
  }
  return problems;
}

/**
 * What the deploy needs beyond the types: a CPU it can parse, memory, disks with a path or a size
 * (a disk with a size and no path is an empty disk, to install a system on from an ISO).
 */
function deployProblems(vm: Record<string, unknown>): string[] {
  const get = (key: string) =>
    Object.entries(vm).find(([k]) => k.toLowerCase() === key.toLowerCase())?.[1];
  const problems: string[] = [];
  const cpu = get('Cpu');
  if (typeof cpu === 'string' && cpu !== '' && !CPU.test(cpu)) {
    problems.push(`Cpu must be sockets x cores, such as "1x2", not ${JSON.stringify(cpu)}`);
  }
  if (get('Ram') === 0) problems.push('Ram must be at least 1 (GB)');
  const disks = get('Disks');
  if (Array.isArray(disks)) {
    disks.forEach((disk, i) => {
      if (!isObject(disk)) return;
      const field = (name: string) =>
        Object.entries(disk).find(([k]) => k.toLowerCase() === name)?.[1];
      const path = field('path');
      const size = field('size');
      const sized = typeof size === 'number' && size > 0;
      if ((typeof path !== 'string' || path.trim() === '') && !sized) {
        problems.push(
          `Disks[${i}].Path is required, such as "[ds] folder/disk.vmdk", or a Size (GB) for an ` +
            'empty disk',
        );
      }
    });
  }
  return problems;
}

/**
 * Everything wrong with a detail, one message each; none when it deploys. Empty text is fine:
 * the server gives the template the default detail (or, linked, its parent's).
 */
export function templateDetailProblems(text: string, names: Names = 'checked'): string[] {
  if (text.trim() === '') return [];
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return [`Detail is not valid JSON: ${e instanceof Error ? e.message : String(e)}`];
  }
  if (!isObject(value)) return ['Detail must be a JSON object (a VmTemplate)'];
  const problems = objectProblems(value, VM_TEMPLATE, '', names);
  for (const [key, v] of Object.entries(value)) {
    const name = canonical(VM_TEMPLATE, key);
    const shape = name ? LISTS[name] : undefined;
    if (!shape || !Array.isArray(v)) continue;
    v.forEach((item, i) => {
      if (isObject(item)) problems.push(...objectProblems(item, shape, `${name}[${i}].`, names));
      else problems.push(`${name}[${i}] must be an object`);
    });
  }
  return problems.length ? problems : deployProblems(value);
}

/** The problems as one message, or null when the detail is fine. */
export function templateDetailProblem(text: string, names: Names = 'checked'): string | null {
  const problems = templateDetailProblems(text, names);
  return problems.length ? problems.join('; ') : null;
}
