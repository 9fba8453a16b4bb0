import type { Clock } from '../clock';
import { tagOf, untagged } from '../hypervisor';
import type { Repositories } from '../store/repositories';
import type { GameEventTable } from '../store/schema';
import type { Actor } from './actor';
import { audienceReaches, isoDate } from './dto';
import { forbidden } from './errors';
import { unknownArgument } from './fields';
import type { GameEvent, GameEventKind, GameEventLog, NewGameEvent } from './gameEvents';
import { asId, newId } from './ids';

// The gamespace event log (gameEvents.ts) over its repository, and who may read it.
//
// Recording never fails the action it records: `record` resolves once the event is stored or
// its failure is logged, and never rejects, so a caller on a hot path does not await it
// (`void gameEvents.record(...)`) and one that wants the event stored first (a test) may.
// Readers: administrators every gamespace, observers those of workspaces whose audience reaches
// their scope (the gamespace browser's rule, audienceReaches); everyone else is refused.

/** The longest text kept of an actor's or machine's name or a detail. */
export const MAX_EVENT_TEXT = 256;

/** Every kind, once: the compiler holds this to GameEventKind, the route's schema lists it. */
const KINDS: Record<GameEventKind, true> = {
  deploy: true,
  'console.open': true,
  'console.close': true,
  'file.put': true,
  'clipboard.paste': true,
  'clipboard.copy': true,
  submission: true,
  extension: true,
  complete: true,
  alert: true,
  'help.raise': true,
  'help.claim': true,
  'help.answer': true,
  'help.cancel': true,
};
export const GAME_EVENT_KINDS = Object.keys(KINDS) as GameEventKind[];

/** How an event goes over the wire (src/api/gameEvents.ts): `at` as an ISO date. */
export interface GameEventDto {
  id: string;
  gamespaceId: string;
  kind: GameEventKind;
  at: string;
  actorId?: string;
  actorName?: string;
  machineId?: string;
  machineName?: string;
  detail?: string;
  score?: number;
}

export interface GameEventLogOptions {
  clock: Clock;
  log: { warn(obj: object, msg: string): void };
}

const text = (value: string | undefined) => (value ?? '').slice(0, MAX_EVENT_TEXT);
const optional = (value: string) => (value ? value : undefined);

function fromRow(row: GameEventTable): GameEvent {
  return Object.fromEntries(
    Object.entries({
      id: row.id,
      gamespaceId: row.gamespaceId,
      kind: row.kind as GameEventKind,
      at: Number(row.at),
      actorId: optional(row.actorId),
      actorName: optional(row.actorName),
      machineId: optional(row.machineId),
      machineName: optional(row.machineName),
      detail: optional(row.detail),
      score: row.score ?? undefined,
    }).filter(([, value]) => value !== undefined),
  ) as unknown as GameEvent;
}

export const gameEventDto = ({ at, ...event }: GameEvent): GameEventDto => ({
  ...event,
  at: isoDate(at),
});

/** A log that keeps nothing: for services built without one (unit tests). */
export const NO_GAME_EVENTS: GameEventLog = {
  record: async () => {},
  list: async () => [],
  removeFor: async () => {},
  subscribe: () => () => {},
};

export function createGameEventLog(
  repositories: Pick<Repositories, 'gameEvents'>,
  options: GameEventLogOptions,
): GameEventLog {
  const store = repositories.gameEvents;
  // Ids start with the time and this process's count, so that one process's events of the same
  // millisecond read back in the order they were recorded (the log reads by time, then id).
  let count = 0;
  const listeners = new Set<(event: GameEvent) => void>();
  const idOf = (at: number) =>
    `${at.toString(16).padStart(12, '0')}${(count++ % 0x10000).toString(16).padStart(4, '0')}${newId().slice(0, 16)}`;

  return {
    async record(event: NewGameEvent): Promise<void> {
      try {
        const at = event.at ?? options.clock.now();
        const row: GameEventTable = {
          id: idOf(at),
          gamespaceId: event.gamespaceId,
          kind: event.kind,
          at,
          actorId: text(event.actorId),
          actorName: text(event.actorName),
          machineId: text(event.machineId),
          machineName: text(event.machineName),
          detail: text(event.detail),
          score:
            typeof event.score === 'number' && Number.isFinite(event.score) ? event.score : null,
        };
        await store.append(row);
        if (listeners.size === 0) return;
        const stored = fromRow(row);
        for (const listener of listeners) listener(stored);
      } catch (err) {
        options.log.warn(
          { err, gamespaceId: event.gamespaceId, kind: event.kind },
          'recording a game event failed',
        );
      }
    },
    list: async (gamespaceId) => (await store.list(gamespaceId)).map(fromRow),
    removeFor: (gamespaceId) => store.removeFor(gamespaceId),
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** A console socket of a machine, as the console route tells of it. */
export interface ConsoleSessionFacts {
  /** Who it opened as: the ticket's subject. */
  subject: { id: string; name: string };
  machineId: string;
  /** The machine's name, `{template}#{tag}`: a gamespace's machines are tagged with its id. */
  machineName: string;
}

/**
 * console.open and console.close of a gamespace's machines; machines of no gamespace (a
 * workspace's, being authored) have no log and are passed over. Returns at once.
 */
export function consoleEventRecorder(
  repositories: Pick<Repositories, 'gamespaces'>,
  events: GameEventLog,
  log: { warn(obj: object, msg: string): void },
) {
  const record = (kind: 'console.open' | 'console.close', facts: ConsoleSessionFacts) => {
    const gamespaceId = tagOf(facts.machineName);
    if (!gamespaceId) return;
    void repositories.gamespaces.find(gamespaceId).then(
      (g) =>
        g &&
        events.record({
          gamespaceId,
          kind,
          actorId: facts.subject.id,
          actorName: facts.subject.name,
          machineId: facts.machineId,
          machineName: untagged(facts.machineName),
        }),
      (err: unknown) => log.warn({ err, gamespaceId, kind }, 'recording a game event failed'),
    );
  };
  return {
    opened: (facts: ConsoleSessionFacts) => record('console.open', facts),
    closed: (facts: ConsoleSessionFacts) => record('console.close', facts),
  };
}

/** GET /api/gamespace/{id}/events: the log, for administrators and observers of its audience. */
export function createGameEventReader(
  repositories: Pick<Repositories, 'gamespaces' | 'workspaces'>,
  events: GameEventLog,
) {
  /** Whether the actor may read a gamespace's events (and watch them live). */
  async function mayRead(
    actor: Actor,
    g: { workspaceId: string | null | undefined },
  ): Promise<boolean> {
    if (actor.isAdmin) return true;
    if (!actor.isObserver || actor.isAgent || actor.grant || !g.workspaceId) return false;
    const ws = await repositories.workspaces.find(g.workspaceId);
    return !!ws && audienceReaches(ws.audience, actor.scope);
  }

  return {
    mayRead,

    /** Whether the actor may observe a workspace's gamespaces (its observe channel). */
    mayObserve: (actor: Actor, workspaceId: string) => mayRead(actor, { workspaceId }),

    /** 400 ResourceNotFound for no such gamespace (as its other routes), 403 for no reach. */
    async list(actor: Actor, id: unknown): Promise<GameEventDto[]> {
      const key = asId(id);
      const g = key ? await repositories.gamespaces.find(key) : undefined;
      if (!g) throw unknownArgument('id');
      if (!(await mayRead(actor, g))) throw forbidden();
      return (await events.list(g.id)).map(gameEventDto);
    },
  };
}

export type GameEventReader = ReturnType<typeof createGameEventReader>;
