import type { Clock } from '../clock';
import type { Repositories } from '../store/repositories';
import type { HelpRequestTable } from '../store/schema';
import type { Actor } from './actor';
import { isoDate } from './dto';
import { DomainError, forbidden, isUniqueViolation, ValidationFailed } from './errors';
import { unknownArgument } from './fields';
import type { GameEventKind, GameEventLog } from './gameEvents';
import { isActive } from './gamespaces';
import { asId, newId } from './ids';
import { observeChannel } from './observeFeed';

// Help requests: a player of a running gamespace raises a hand with a short message; the
// observers of its workspace (administrators, observers its audience reaches: the event log's
// readers, one rule) see a queue, claim one and answer it; the player may cancel theirs.
//
// - At most one request of a gamespace is open. Raising again while one is open answers that
//   open one unchanged, so a retried or doubled raise makes no second request.
// - Claiming one another observer claimed takes it over: the one who is on it now is who it says.
// - A closed (answered or cancelled) request cannot be claimed, answered or cancelled again:
//   400 InvalidOperation.
// - Each change is recorded in the gamespace's event log (help.*; its detail holds at most a
//   short start of the text) and told as ObserveEvent HELP.UPDATED with the request, to the
//   workspace's observe channel and to the gamespace's own channel, where its players listen.

export const MAX_HELP_MESSAGE = 500;
export const MAX_HELP_ANSWER = 2_000;
/** How much of a message or an answer the event log's detail keeps. */
export const HELP_DETAIL_CHARS = 40;

export type HelpStatus = HelpRequestTable['status'];

/** How a request goes over the wire (src/api/help.ts); absent fields are unset. */
export interface HelpRequestDto {
  id: string;
  gamespaceId: string;
  workspaceId: string;
  gamespaceName: string;
  playerId: string;
  playerName: string;
  message: string;
  status: HelpStatus;
  /** ISO 8601. */
  raisedAt: string;
  claimedById?: string;
  claimedByName?: string;
  claimedAt?: string;
  answer?: string;
  answeredById?: string;
  answeredByName?: string;
  /** When it was answered or cancelled. */
  closedAt?: string;
}

export function helpRequestDto(row: HelpRequestTable): HelpRequestDto {
  const dto: HelpRequestDto = {
    id: row.id,
    gamespaceId: row.gamespaceId,
    workspaceId: row.workspaceId,
    gamespaceName: row.gamespaceName,
    playerId: row.playerId,
    playerName: row.playerName,
    message: row.message,
    status: row.status,
    raisedAt: isoDate(row.raisedAt),
  };
  if (row.claimedById) {
    dto.claimedById = row.claimedById;
    dto.claimedByName = row.claimedByName;
    dto.claimedAt = isoDate(row.claimedAt);
  }
  if (row.status === 'answered') {
    dto.answer = row.answer;
    dto.answeredById = row.answeredById;
    dto.answeredByName = row.answeredByName;
  }
  if (row.closedAt > 0) dto.closedAt = isoDate(row.closedAt);
  return dto;
}

/** Where changes are told: `hub.toGroup(channel).send('ObserveEvent', payload)`. */
export interface HelpPublisher {
  publish(
    channel: string,
    payload: { action: 'HELP.UPDATED'; actor: { id: string; name: string }; model: HelpRequestDto },
  ): void;
}

export interface HelpServiceOptions {
  repositories: Pick<Repositories, 'helpRequests' | 'gamespaces' | 'players'>;
  /** Who may observe a gamespace (createGameEventReader's mayRead). */
  mayObserve(actor: Actor, g: { workspaceId: string | null | undefined }): Promise<boolean>;
  events: GameEventLog;
  publisher: HelpPublisher;
  clock: Clock;
}

/** Trimmed, 1 to `max` characters, or a 400 that says which. */
function text(value: unknown, max: number, field: string, what: string): string {
  const trimmed = typeof value === 'string' ? value.trim() : '';
  if (!trimmed) throw new ValidationFailed(field, `The ${what} must not be empty.`);
  if (trimmed.length > max)
    throw new ValidationFailed(field, `The ${what} must be at most ${max} characters.`);
  return trimmed;
}

const preview = (value: string) =>
  value.length > HELP_DETAIL_CHARS ? `${value.slice(0, HELP_DETAIL_CHARS - 1)}…` : value;

const closed = () => new DomainError('InvalidOperation', 'The help request is closed.');

export function createHelpService(options: HelpServiceOptions) {
  const { helpRequests, gamespaces, players } = options.repositories;
  const now = () => options.clock.now();

  /** gs.CanInteract: the manager, any player, administrators; no agent, no other game's grant. */
  async function plays(
    actor: Actor,
    g: { id: string; managerId: string | null },
  ): Promise<boolean> {
    if (actor.isAgent || (actor.grant && actor.grant.gamespaceId !== g.id)) return false;
    if (actor.isAdmin || g.managerId === actor.id) return true;
    return (await players.permissionOf(g.id, actor.id)) !== null;
  }

  async function gamespaceOf(id: unknown) {
    const key = asId(id);
    const g = key ? await gamespaces.find(key) : undefined;
    if (!g) throw unknownArgument('id');
    return g;
  }

  async function requestOf(id: unknown): Promise<HelpRequestTable> {
    const key = asId(id);
    const row = key ? await helpRequests.find(key) : undefined;
    if (!row) throw unknownArgument('id');
    return row;
  }

  function tell(actor: Actor, row: HelpRequestTable, kind: GameEventKind, detail: string) {
    const model = helpRequestDto(row);
    const by = { id: actor.id, name: actor.name };
    const payload = { action: 'HELP.UPDATED' as const, actor: by, model };
    options.publisher.publish(observeChannel(row.workspaceId), payload);
    options.publisher.publish(row.gamespaceId, payload);
    void options.events.record({
      gamespaceId: row.gamespaceId,
      kind,
      actorId: actor.id,
      actorName: actor.name,
      detail,
    });
    return model;
  }

  /** The request as it is now, after a conditional change; a 400 when it had closed. */
  async function changed(id: string, applied: boolean): Promise<HelpRequestTable> {
    if (!applied) throw closed();
    const row = await helpRequests.find(id);
    if (!row) throw unknownArgument('id');
    return row;
  }

  /** Those of the workspaces (each once, in order) that the actor observes. */
  async function observed(actor: Actor, workspaceIds: readonly string[]): Promise<string[]> {
    const ids = [...new Set(workspaceIds)].sort();
    const reached = await Promise.all(
      ids.map((workspaceId) => options.mayObserve(actor, { workspaceId })),
    );
    return ids.filter((_, i) => reached[i]);
  }

  /** An observer of the request's workspace, or 403. */
  async function assertObserves(actor: Actor, row: HelpRequestTable) {
    if (!(await options.mayObserve(actor, row))) throw forbidden();
  }

  return {
    /** POST gamespace/{id}/help: raises a hand, or answers the gamespace's open request. */
    async raise(actor: Actor, gamespaceId: unknown, message: unknown): Promise<HelpRequestDto> {
      const g = await gamespaceOf(gamespaceId);
      if (!(await plays(actor, g))) throw forbidden();
      const body = text(message, MAX_HELP_MESSAGE, 'message', 'message');
      if (!isActive(g, now())) throw new DomainError('GamespaceIsExpired');
      if (!g.workspaceId)
        throw new DomainError('InvalidOperation', 'The gamespace has no workspace.');
      const open = await helpRequests.openOf(g.id);
      if (open) return helpRequestDto(open);
      const row: HelpRequestTable = {
        id: newId(),
        gamespaceId: g.id,
        workspaceId: g.workspaceId,
        gamespaceName: g.name ?? '',
        playerId: actor.id,
        playerName: actor.name,
        message: body,
        status: 'open',
        raisedAt: now(),
        claimedById: '',
        claimedByName: '',
        claimedAt: 0,
        answer: '',
        answeredById: '',
        answeredByName: '',
        closedAt: 0,
      };
      try {
        await helpRequests.insert(row);
      } catch (err) {
        // Another raise of the same gamespace got in first: that one is the open request.
        const other = isUniqueViolation(err) ? await helpRequests.openOf(g.id) : undefined;
        if (other) return helpRequestDto(other);
        throw err;
      }
      return tell(actor, row, 'help.raise', preview(body));
    },

    /** GET gamespace/{id}/help: its requests, oldest first, for its players and its observers. */
    async ofGamespace(actor: Actor, gamespaceId: unknown): Promise<HelpRequestDto[]> {
      const g = await gamespaceOf(gamespaceId);
      if (!(await plays(actor, g)) && !(await options.mayObserve(actor, g))) throw forbidden();
      return (await helpRequests.ofGamespace(g.id)).map(helpRequestDto);
    },

    /**
     * GET help?workspaceId=: the queue (open first, oldest first, then the last closed). Without
     * a workspace: every workspace's the actor observes. Only observers and administrators.
     */
    async queue(actor: Actor, workspaceId: unknown): Promise<HelpRequestDto[]> {
      if (!actor.isAdmin && !actor.isObserver) throw forbidden();
      if (workspaceId === undefined || workspaceId === '') {
        if (actor.isAdmin) return (await helpRequests.queue(null)).map(helpRequestDto);
        // Where something may be asked or is open, as far as the observer's audience reaches.
        const [running, open] = await Promise.all([
          helpRequests.runningWorkspaces(now()),
          helpRequests.openWorkspaces(),
        ]);
        return (await helpRequests.queue(await observed(actor, [...running, ...open]))).map(
          helpRequestDto,
        );
      }
      const key = asId(workspaceId);
      if (!key) throw unknownArgument('workspaceId');
      if (!(await options.mayObserve(actor, { workspaceId: key }))) throw forbidden();
      return (await helpRequests.queue([key])).map(helpRequestDto);
    },

    /**
     * GET help/workspaces: the workspaces with a running gamespace that the actor observes, whose
     * observe channels a queue of every workspace listens on. Only observers and administrators.
     */
    async watchedWorkspaces(actor: Actor): Promise<string[]> {
      if (!actor.isAdmin && !actor.isObserver) throw forbidden();
      const ids = await helpRequests.runningWorkspaces(now());
      return actor.isAdmin ? ids : observed(actor, ids);
    },

    /** POST help/{id}/claim: the actor is on it (taking it over from whoever was). */
    async claim(actor: Actor, id: unknown): Promise<HelpRequestDto> {
      const row = await requestOf(id);
      await assertObserves(actor, row);
      const applied = await helpRequests.changeOpen(row.id, {
        claimedById: actor.id,
        claimedByName: actor.name,
        claimedAt: now(),
      });
      const taken =
        row.claimedById && row.claimedById !== actor.id ? `from ${row.claimedByName}` : '';
      return tell(actor, await changed(row.id, applied), 'help.claim', taken);
    },

    /** POST help/{id}/answer: answers and closes it. */
    async answer(actor: Actor, id: unknown, answer: unknown): Promise<HelpRequestDto> {
      const row = await requestOf(id);
      await assertObserves(actor, row);
      const body = text(answer, MAX_HELP_ANSWER, 'text', 'answer');
      const at = now();
      const applied = await helpRequests.changeOpen(row.id, {
        status: 'answered',
        answer: body,
        answeredById: actor.id,
        answeredByName: actor.name,
        closedAt: at,
        // Whoever answers was on it.
        claimedById: actor.id,
        claimedByName: actor.name,
        claimedAt: row.claimedById === actor.id ? row.claimedAt : at,
      });
      return tell(actor, await changed(row.id, applied), 'help.answer', preview(body));
    },

    /** POST help/{id}/cancel: a player of its gamespace takes it back. */
    async cancel(actor: Actor, id: unknown): Promise<HelpRequestDto> {
      const row = await requestOf(id);
      const g = await gamespaceOf(row.gamespaceId);
      if (!(await plays(actor, g))) throw forbidden();
      const applied = await helpRequests.changeOpen(row.id, {
        status: 'cancelled',
        closedAt: now(),
      });
      return tell(actor, await changed(row.id, applied), 'help.cancel', '');
    },
  };
}

export type HelpService = ReturnType<typeof createHelpService>;
