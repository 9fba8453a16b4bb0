// JSON schemas of the VM routes (wire reference §1.4, §2.5). Responses list every property so
// that nulls are written out, as the reference does (`ticket: null` tells a console client to use
// WMKS rather than noVNC, so it must never be left out).

import type { HypervisorType, VmOperationType } from '../../core/vmViews';
import { vmCapabilitiesSchema, vmNicsSchema } from '../schemas';

const text = { type: ['string', 'null'] } as const;
const nullableString = { type: ['string', 'null'] } as const;

/** The reference's enum order, for clients that send the operation as an integer. */
export const OPERATION_TYPES: readonly VmOperationType[] = [
  'start',
  'stop',
  'save',
  'revert',
  'delete',
  'reset',
];

/** The reference's values of `Vm.hypervisorType`, the only ones its generated clients accept. */
export const HYPERVISOR_TYPES: readonly HypervisorType[] = ['vsphere', 'proxmox'];

export const idParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', minLength: 1, maxLength: 200 } },
} as const;

export const vmsQuery = {
  type: 'object',
  properties: { filter: { type: 'string' } },
} as const;

export const vmOperationBody = {
  type: 'object',
  required: ['id', 'type'],
  properties: {
    id: { type: 'string', minLength: 1, maxLength: 200 },
    // A name in any case, or the enum's integer (checked by operationType).
    type: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
  },
} as const;

export const vmChangeBody = {
  type: 'object',
  required: ['key'],
  properties: {
    key: { type: 'string', minLength: 1, maxLength: 64 },
    value: { type: ['string', 'null'], maxLength: 1024 },
  },
} as const;

export const vmAnswerBody = {
  type: 'object',
  properties: { questionId: text, choiceKey: text },
} as const;

const taskSchema = {
  type: ['object', 'null'],
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    progress: { type: 'integer' },
    whenCreated: { type: 'string' },
  },
} as const;

const questionSchema = {
  type: ['object', 'null'],
  properties: {
    id: { type: 'string' },
    prompt: { type: 'string' },
    defaultChoice: { type: 'string' },
    choices: {
      type: 'array',
      items: {
        type: 'object',
        properties: { key: { type: 'string' }, label: { type: 'string' } },
      },
    },
  },
} as const;

const vmProperties = {
  id: { type: 'string' },
  name: { type: 'string' },
  host: nullableString,
  path: nullableString,
  reference: nullableString,
  diskPath: nullableString,
  stats: nullableString,
  status: { type: 'string' },
  groupName: nullableString,
  tags: { type: ['array', 'null'], items: { type: 'string' } },
  state: { type: 'string' },
  question: questionSchema,
  task: taskSchema,
  hypervisorType: {
    type: 'string',
    enum: HYPERVISOR_TYPES,
    description:
      "The kind of hypervisor the machine behaves like, in the reference's enum: generated " +
      'clients accept no other value. What the machine supports is in `operations`.',
  },
  isTemplate: { type: 'boolean' },
  operations: {
    type: 'array',
    items: { type: 'string', enum: OPERATION_TYPES },
    description:
      "Topoplay's own, not in the reference (its clients ignore it): the operations of " +
      'PUT /api/vm that the machine supports (`revert` only where it can go back to a ' +
      "snapshot). Whether one applies now still depends on the machine's status and state.",
  },
  nics: {
    ...vmNicsSchema,
    description:
      "Topoplay's own, not in the reference (its clients ignore it): the machine's NICs in " +
      "order and each one's network ('' when disconnected). PUT /api/vm/{id}/change with key " +
      '`net` and value `{network}:{index}` moves one.',
  },
  capabilities: {
    ...vmCapabilitiesSchema,
    description:
      "Topoplay's own, not in the reference (its clients ignore it): the changes of " +
      "PUT /api/vm/{id}/change (keys `iso`, `net`, `guest`) that the machine's hypervisor can " +
      'make while the machine runs.',
  },
  playerNames: {
    type: 'array',
    items: { type: 'string' },
    description:
      "Topoplay's own, not in the reference (its clients ignore it), and only in GET /api/vms: " +
      "the names of the players of the gamespace a machine belongs to, in the game state's order.",
  },
} as const;

export const vmSchema = { type: 'object', properties: vmProperties } as const;

/** GET /api/vm/{id} answers JSON null for a machine that does not exist. */
export const vmOrNullSchema = { type: ['object', 'null'], properties: vmProperties } as const;

export { vmOptionsSchema } from '../schemas';

export const vmConsoleSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    isolationId: { type: 'string' },
    name: { type: 'string' },
    url: nullableString,
    ticket: nullableString,
    isRunning: { type: 'boolean' },
    // Ours: the console's sessions are recorded (server/console/recordings.ts).
    recorded: { type: 'boolean' },
    // Ours: watch only (the console route drops the viewer's input), and whether the viewer may
    // ask again with ?control=true.
    viewOnly: { type: 'boolean' },
    mayTakeControl: { type: 'boolean' },
    // Ours: who has the console open now (server/console/viewers.ts), as CONSOLE.VIEWERS says.
    viewers: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          id: { type: 'string' },
          name: { type: 'string' },
          role: { type: 'string', enum: ['player', 'admin', 'observer'] },
          control: { type: 'boolean' },
        },
        required: ['id', 'name', 'role', 'control'],
      },
    },
  },
} as const;

/** The operation a body names, or null for anything else. */
export function operationType(value: unknown): VmOperationType | null {
  if (typeof value === 'number') return OPERATION_TYPES[value] ?? null;
  if (typeof value !== 'string') return null;
  // The validator coerces an integer to its text.
  if (/^\d+$/.test(value)) return OPERATION_TYPES[Number(value)] ?? null;
  const name = value.toLowerCase();
  return OPERATION_TYPES.find((t) => t === name) ?? null;
}
