import type { TemplateTable, WorkspaceTable } from '../store/schema';
import { isoDate, parseDate } from './dto';

// The columns of workspaces and templates as the export's _data.json writes them: PascalCase
// entities (as the reference's), flags as booleans, times as ISO dates. Reading an entity checks
// every field's type, and a missing optional field takes its default, so an archive from an older
// or newer writer still reads and a malformed one is refused before anything is written.

type Kind = 'string' | 'nullableString' | 'flag' | 'int' | 'time';
type Spec<Row> = { [K in keyof Row]: Kind };

export const WORKSPACE_FIELDS: Spec<WorkspaceTable> = {
  id: 'string',
  name: 'string',
  description: 'string',
  tags: 'string',
  author: 'string',
  audience: 'string',
  shareCode: 'string',
  templateScope: 'string',
  isPublished: 'flag',
  templateLimit: 'int',
  hostAffinity: 'flag',
  useUplinkSwitch: 'flag',
  durationMinutes: 'int',
  launchCount: 'int',
  lastActivity: 'time',
  challenge: 'string',
  whenCreated: 'time',
};

export const TEMPLATE_FIELDS: Spec<TemplateTable> = {
  id: 'string',
  name: 'string',
  description: 'string',
  audience: 'string',
  iso: 'string',
  networks: 'string',
  guestinfo: 'string',
  isHidden: 'flag',
  isPublished: 'flag',
  isLinked: 'flag',
  detail: 'nullableString',
  parentId: 'nullableString',
  replicas: 'int',
  variant: 'int',
  workspaceId: 'nullableString',
  whenCreated: 'time',
};

const pascal = (key: string) => key.charAt(0).toUpperCase() + key.slice(1);

/** A row as a PascalCase entity. */
export function entityOf<Row extends object>(spec: Spec<Row>, row: Row): Record<string, unknown> {
  const entity: Record<string, unknown> = {};
  for (const key of Object.keys(spec) as Array<keyof Row & string>) {
    const value = row[key] as unknown;
    const kind = spec[key];
    entity[pascal(key)] =
      kind === 'flag' ? value === 1 : kind === 'time' ? isoDate(value as number) : value;
  }
  return entity;
}

/** An entity's fields (keys camelCase already) as a row; `refuse` makes the error to throw. */
export function rowOf<Row extends object>(
  spec: Spec<Row>,
  fields: Record<string, unknown>,
  what: string,
  refuse: (why: string) => Error,
): Row {
  const row: Record<string, unknown> = {};
  for (const key of Object.keys(spec) as Array<keyof Row & string>) {
    const value = fields[key];
    const wrong = () => refuse(`a ${what}'s ${pascal(key)} is not valid`);
    switch (spec[key]) {
      case 'string':
        if (key === 'id' && typeof value !== 'string') throw wrong();
        if (value !== undefined && value !== null && typeof value !== 'string') throw wrong();
        row[key] = value ?? '';
        break;
      case 'nullableString':
        if (value !== undefined && value !== null && typeof value !== 'string') throw wrong();
        row[key] = value ?? null;
        break;
      case 'flag':
        if (value !== undefined && typeof value !== 'boolean' && value !== 0 && value !== 1) {
          throw wrong();
        }
        row[key] = value === true || value === 1 ? 1 : 0;
        break;
      case 'int':
        if (value !== undefined && !Number.isSafeInteger(value)) throw wrong();
        row[key] = value ?? 0;
        break;
      case 'time':
        row[key] = parseDate(value);
        break;
    }
  }
  return row as Row;
}
