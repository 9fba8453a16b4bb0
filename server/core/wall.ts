import { parseChallengeText } from '../../src/domain/challenge';
import { points } from '../../src/domain/graders';
import { realClock, type Clock } from '../clock';
import { tagOf, untagged, type HypervisorDriver } from '../hypervisor';
import type { Repositories } from '../store/repositories';
import type { Actor } from './actor';
import { audienceReaches, isoDate } from './dto';
import { forbidden } from './errors';
import { isActive } from './gamespaces';

// The instructor's wall (GET /api/wall, ours): every running gamespace the caller may observe,
// with what a tile shows of it. Administrators see every one, observers those of workspaces whose
// audience reaches their scope (the gamespace browser's and the event log's rule,
// audienceReaches), anyone else is refused. The wall asks again every few seconds for hundreds of
// gamespaces, so each part is read once for all of them: the gamespaces, the audiences, the
// workspaces' names, the players, the latest event of each, and the machines in one driver call.

/** A machine on the wall: only whether it runs, which decides whether its picture can change. */
export interface WallMachine {
  id: string;
  name: string;
  state: 'running' | 'off';
}

/**
 * What its machines say of a gamespace at a glance: all running, some or all of them off, or
 * none (not deployed yet, or a game without machines).
 */
export type WallState = 'running' | 'someOff' | 'allOff' | 'noMachines';

export interface WallEntry {
  gamespaceId: string;
  workspaceId: string;
  workspaceName: string;
  managerName: string;
  /** One player, or a team of several, in the game state's order. */
  players: Array<{ id: string; name: string }>;
  startTime: string;
  endTime: string;
  expirationTime: string;
  /** In points, as the challenge progress gives them. */
  score: number;
  maxPoints: number;
  /** Submissions over all question sets, as the challenge progress counts them. */
  attempts: number;
  /** 0: no limit. */
  maxAttempts: number;
  state: WallState;
  /** When its latest game event happened; null when it has none yet. */
  lastActivity: string | null;
  /** Its open help request (a raised hand), with who is on it; null when none. */
  help: { id: string; message: string; raisedAt: string; claimedByName: string | null } | null;
  /** How many answer-sharing alerts its submissions raised. */
  alerts: number;
  /** By name. */
  machines: WallMachine[];
}

export interface WallDeps {
  repositories: Pick<
    Repositories,
    'gamespaces' | 'workspaces' | 'players' | 'gameEvents' | 'helpRequests' | 'alerts'
  >;
  driver: Pick<HypervisorDriver, 'find'>;
  clock?: Clock;
}

/** The machines of every isolation tag, in one driver call: a tagged machine's name has a `#`. */
async function machinesByTag(driver: WallDeps['driver']): Promise<Map<string, WallMachine[]>> {
  const byTag = new Map<string, WallMachine[]>();
  for (const vm of await driver.find('#')) {
    const tag = tagOf(vm.name);
    if (!tag) continue;
    const machine: WallMachine = {
      id: vm.id,
      name: untagged(vm.name),
      state: vm.state === 'running' ? 'running' : 'off',
    };
    byTag.set(tag, [...(byTag.get(tag) ?? []), machine]);
  }
  return byTag;
}

export function wallState(machines: readonly WallMachine[]): WallState {
  if (machines.length === 0) return 'noMachines';
  const running = machines.filter((m) => m.state === 'running').length;
  return running === machines.length ? 'running' : running === 0 ? 'allOff' : 'someOff';
}

export function createWallService(deps: WallDeps) {
  const { gamespaces, workspaces, players, gameEvents, helpRequests, alerts } = deps.repositories;
  const clock = deps.clock ?? realClock;

  return {
    /** GET /api/wall[?workspaceId=]: 403 for anyone but administrators and observers. */
    async list(actor: Actor, query: { workspaceId?: string }): Promise<WallEntry[]> {
      if (!actor.isAdmin && (!actor.isObserver || actor.isAgent || actor.grant)) throw forbidden();
      const now = clock.now();
      let rows = (await gamespaces.search({ active: true, now })).filter(
        (g) => isActive(g, now) && !!g.workspaceId,
      );
      if (query.workspaceId) rows = rows.filter((g) => g.workspaceId === query.workspaceId);
      if (!actor.isAdmin) {
        const audiences = new Map((await workspaces.audiences()).map((w) => [w.id, w.audience]));
        rows = rows.filter((g) => audienceReaches(audiences.get(g.workspaceId!), actor.scope));
      }
      if (rows.length === 0) return [];
      const ids = rows.map((g) => g.id);
      const [names, playersOf, latest, machines, hands, alertCounts] = await Promise.all([
        workspaces.namesOf([...new Set(rows.map((g) => g.workspaceId!))]),
        players.inGamespaces(ids),
        gameEvents.latestOf(ids),
        machinesByTag(deps.driver),
        helpRequests.openIn(ids),
        alerts.countsOf(ids),
      ]);
      const handOf = new Map(hands.map((h) => [h.gamespaceId, h]));
      const workspaceNames = new Map(names.map((w) => [w.id, w.name]));
      return rows.map((g): WallEntry => {
        const spec = parseChallengeText(g.challenge);
        const own = (machines.get(g.id) ?? []).sort((a, b) =>
          a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
        );
        const last = latest.get(g.id);
        const hand = handOf.get(g.id);
        return {
          gamespaceId: g.id,
          workspaceId: g.workspaceId!,
          workspaceName: workspaceNames.get(g.workspaceId!) ?? '',
          managerName: g.managerName ?? '',
          players: (playersOf.get(g.id) ?? []).map((p) => ({
            id: p.subjectId,
            name: p.subjectName,
          })),
          startTime: isoDate(g.startTime),
          endTime: isoDate(g.endTime),
          expirationTime: isoDate(g.expirationTime),
          score: points(spec.score, spec.maxPoints),
          maxPoints: spec.maxPoints,
          attempts: spec.submissions.length,
          maxAttempts: spec.maxAttempts,
          state: wallState(own),
          lastActivity: last === undefined ? null : isoDate(last),
          help: hand
            ? {
                id: hand.id,
                message: hand.message,
                raisedAt: isoDate(hand.raisedAt),
                claimedByName: hand.claimedByName || null,
              }
            : null,
          alerts: alertCounts.get(g.id) ?? 0,
          machines: own,
        };
      });
    },
  };
}

export type WallService = ReturnType<typeof createWallService>;
