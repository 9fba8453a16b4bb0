import { realClock, type Clock } from '../clock';
import type { Repositories } from '../store/repositories';
import type { DispatchTable } from '../store/schema';
import { audienceReaches, isoDate, parseDate } from './dto';
import { forbidden } from './errors';
import { actorRef, invalid, unknownArgument, type EventPayload, type Paging } from './fields';
import { asId, newId } from './ids';
import type { Actor } from './actor';
import { PERMISSION } from './workspaces';

// The dispatcher (wire reference §1.5, §4.12): commands an admin's or observer's console (or
// Gameboard) sends to the agents inside a gamespace's machines, and the agents' answers. Every
// operation is allowed to admins, the gamespace's own agent (its grader key: actor id = the
// gamespace id), those who may manage the gamespace (gs.CanManage) and observers whose scope
// matches the audience of its workspace. Each change is told to the gamespace's group as a
// DispatchEvent, which the .NET agent registers under exactly that name.

export interface DispatchPublisher {
  publish(group: string, event: 'DispatchEvent', payload: EventPayload): void;
}

/** Dispatch (wire reference §2.6). Empty texts are written as null, as the reference stores them. */
export function dispatchDto(d: DispatchTable) {
  return {
    id: d.id,
    referenceId: d.referenceId,
    trigger: d.trigger,
    targetGroup: d.targetGroup,
    targetName: d.targetName || null,
    result: d.result || null,
    error: d.error || null,
    whenUpdated: isoDate(d.whenUpdated),
    whenCreated: isoDate(d.whenCreated),
  };
}

export type DispatchDto = ReturnType<typeof dispatchDto>;

export interface NewDispatch {
  referenceId?: string | null;
  trigger?: string | null;
  targetGroup?: string | null;
  targetName?: string | null;
}

export interface ChangedDispatch {
  id: string;
  result?: string | null;
  error?: string | null;
  targetName?: string | null;
}

export interface DispatchSearch extends Paging {
  gs?: string;
  since?: string;
  filter: string[];
}

/** An agent listening on a gamespace's channel: the host it said it runs on, if any. */
export interface ListeningAgent {
  hostname: string | null;
}

/** A row of GET /api/dispatches/agents. */
export interface AgentPresence {
  /**
   * A machine of the gamespace (its name without the tag), a host name an agent gave that names
   * none of them, or null for the agents that gave no host name (the reference's agent).
   */
  name: string | null;
  isMachine: boolean;
  /** How many agents listen under that name now. */
  agents: number;
}

/**
 * Who would answer a dispatch: every machine of the gamespace with the agents listening on it
 * (an agent's host name is matched without case, as agents match a dispatch's target), then the
 * host names that are no machine's, then the agents that gave none, which answer only commands
 * sent to every host.
 */
export function agentPresence(
  machines: readonly string[],
  agents: readonly ListeningAgent[],
): AgentPresence[] {
  const counts = new Map<string, { name: string; agents: number }>();
  let unnamed = 0;
  for (const { hostname } of agents) {
    if (!hostname) {
      unnamed++;
      continue;
    }
    const key = hostname.toLowerCase();
    counts.set(key, {
      name: counts.get(key)?.name ?? hostname,
      agents: (counts.get(key)?.agents ?? 0) + 1,
    });
  }
  const rows: AgentPresence[] = machines.map((name) => ({
    name,
    isMachine: true,
    agents: counts.get(name.toLowerCase())?.agents ?? 0,
  }));
  const machineKeys = new Set(machines.map((name) => name.toLowerCase()));
  for (const [key, host] of counts) {
    if (!machineKeys.has(key))
      rows.push({ name: host.name, isMachine: false, agents: host.agents });
  }
  if (unnamed > 0) rows.push({ name: null, isMachine: false, agents: unnamed });
  return rows;
}

/** A date whose offset's '+' a client left unencoded in the query arrives as a space. */
const unencodedPlus = (date: string) => date.replace(/ (\d{2}:?\d{2})$/, '+$1');

export interface DispatchServiceOptions {
  publisher: DispatchPublisher;
  /** The server's time: when dispatches are made and answered. */
  clock?: Clock;
  /** The agents listening on a gamespace's channel (the hub's, on every server process). */
  agents?(gamespaceId: string): Promise<ListeningAgent[]>;
  /** The names of a gamespace's machines, without their tag. */
  machines?(gamespaceId: string): Promise<string[]>;
}

export function createDispatchService(
  repositories: Pick<Repositories, 'dispatches' | 'gamespaces' | 'players' | 'workspaces'>,
  options: DispatchServiceOptions,
) {
  const clock = options.clock ?? realClock;
  const now = () => clock.now();
  const { dispatches, gamespaces, players, workspaces } = repositories;

  /** Whether the actor may send to, read or answer the dispatches of gamespace `group`. */
  async function mayDispatch(actor: Actor, group: string): Promise<boolean> {
    if (actor.isAdmin || (actor.isAgent && actor.id === group)) return true;
    const g = await gamespaces.find(group);
    if (!g) return false;
    if (g.managerId === actor.id) return true;
    if ((await players.permissionOf(g.id, actor.id)) === PERMISSION.manager) return true;
    if (!actor.isObserver || !g.workspaceId) return false;
    const ws = await workspaces.find(g.workspaceId);
    return audienceReaches(ws?.audience, actor.scope);
  }

  async function authorize(actor: Actor, group: string): Promise<void> {
    if (!(await mayDispatch(actor, group))) throw forbidden();
  }

  /** The record, or 400 ResourceNotFound (before authorization, as the reference validates). */
  async function existing(id: unknown): Promise<DispatchTable> {
    const key = asId(id);
    const row = key ? await dispatches.find(key) : undefined;
    if (!row) throw unknownArgument('id');
    return row;
  }

  function tell(actor: Actor, action: string, group: string, model: unknown): void {
    options.publisher.publish(group, 'DispatchEvent', { action, actor: actorRef(actor), model });
  }

  return {
    /** The gamespace a dispatch is for (what a grader key may reach), or null. */
    async groupOf(id: string): Promise<string | null> {
      return (await dispatches.find(id))?.targetGroup ?? null;
    },

    /** POST /api/dispatch: referenceId defaults to a new id; DISPATCH.CREATE to the group. */
    async create(actor: Actor, model: NewDispatch): Promise<DispatchDto> {
      const group = asId(model.targetGroup);
      if (!group || !(await gamespaces.exists(group))) throw unknownArgument('targetGroup');
      const trigger = (model.trigger ?? '').trim();
      if (!trigger) throw invalid('trigger');
      await authorize(actor, group);
      const row: DispatchTable = {
        id: newId(),
        referenceId: model.referenceId || newId(),
        trigger,
        targetGroup: group,
        targetName: model.targetName ?? '',
        result: '',
        error: '',
        whenUpdated: 0,
        whenCreated: now(),
      };
      await dispatches.insert(row);
      const dto = dispatchDto(row);
      tell(actor, 'DISPATCH.CREATE', group, dto);
      return dto;
    },

    async load(actor: Actor, id: string): Promise<DispatchDto> {
      const row = await existing(id);
      await authorize(actor, row.targetGroup);
      return dispatchDto(row);
    },

    /**
     * PUT /api/dispatch, an agent's answer (wire reference §4.12): whenUpdated = now. The same
     * target name updates the record; an answer to a broadcast (no target name) becomes a record
     * of its own, a copy of the original with the answer, one per responding host, and the
     * original stays as it was for the hosts yet to answer; any other target name is refused.
     */
    async update(actor: Actor, model: ChangedDispatch): Promise<DispatchDto> {
      const stored = await existing(model.id);
      await authorize(actor, stored.targetGroup);
      const answer = {
        result: model.result ?? '',
        error: model.error ?? '',
        targetName: model.targetName ?? '',
        whenUpdated: now(),
      };
      let row: DispatchTable;
      if (answer.targetName === stored.targetName) {
        if (!(await dispatches.answer(stored.id, answer))) throw unknownArgument('id');
        row = { ...stored, ...answer };
      } else if (!stored.targetName) {
        row = { ...stored, ...answer, id: newId() };
        await dispatches.insert(row);
      } else {
        throw forbidden();
      }
      const dto = dispatchDto(row);
      tell(actor, 'DISPATCH.UPDATE', row.targetGroup, dto);
      return dto;
    },

    /** DELETE /api/dispatch/{id}: DISPATCH.DELETE with `{id, targetGroup}`. */
    async remove(actor: Actor, id: string): Promise<void> {
      const row = await existing(id);
      await authorize(actor, row.targetGroup);
      await dispatches.remove(row.id);
      tell(actor, 'DISPATCH.DELETE', row.targetGroup, { id: row.id, targetGroup: row.targetGroup });
    },

    /**
     * GET /api/dispatches?gs=: a gamespace's dispatches, oldest first. `pending` = not answered
     * yet; `since` = created or answered after that time (an unreadable date is ignored).
     */
    /**
     * GET /api/dispatches/agents?gs=: whether an agent listens on each machine of the gamespace
     * (ours: the reference has no way to tell), for whoever may read its dispatches.
     */
    async agents(actor: Actor, gs: unknown): Promise<AgentPresence[]> {
      const group = asId(gs);
      if (!group || !(await gamespaces.exists(group))) throw unknownArgument('gs');
      await authorize(actor, group);
      const [machines, agents] = await Promise.all([
        options.machines?.(group) ?? [],
        options.agents?.(group) ?? [],
      ]);
      return agentPresence([...machines].sort(), agents);
    },

    async list(actor: Actor, search: DispatchSearch): Promise<DispatchDto[]> {
      const group = asId(search.gs);
      if (!group || !(await gamespaces.exists(group))) throw unknownArgument('gs');
      await authorize(actor, group);
      const rows = await dispatches.list({
        targetGroup: group,
        pending: search.filter.includes('pending'),
        since: parseDate(unencodedPlus(search.since ?? '')),
        skip: search.skip,
        take: search.take,
      });
      return rows.map(dispatchDto);
    },
  };
}

export type DispatchService = ReturnType<typeof createDispatchService>;
