import type { Db } from '../store/db';
import { createDispatchRepository } from '../store/repositories/dispatches';
import { createGamespaceRepository } from '../store/repositories/gamespaces';
import { createPlayerRepository } from '../store/repositories/players';
import { createWorkspaceRepository } from '../store/repositories/workspaces';
import type { DispatchTable } from '../store/schema';
import { audienceReaches, isoDate, parseDate } from './dto';
import { forbidden } from './errors';
import { actorRef, invalid, unknownArgument, type EventPayload, type Paging } from './fields';
import { asId, newId } from './ids';
import type { Actor } from './users';
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

/** A date whose offset's '+' a client left unencoded in the query arrives as a space. */
const unencodedPlus = (date: string) => date.replace(/ (\d{2}:?\d{2})$/, '+$1');

export function createDispatchService(
  db: Db,
  options: { publisher: DispatchPublisher; now?: () => number },
) {
  const now = options.now ?? Date.now;
  const dispatches = createDispatchRepository(db);
  const gamespaces = createGamespaceRepository(db);
  const players = createPlayerRepository(db);
  const workspaces = createWorkspaceRepository(db);

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
