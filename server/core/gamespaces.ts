import { join } from 'node:path';
import { parseChallengeText } from '../../src/domain/challenge';
import { realClock, type Clock } from '../clock';
import { untagged, type HypervisorDriver } from '../hypervisor';
import type { Repositories } from '../store/repositories';
import type { GamespaceTable, PlayerTable } from '../store/schema';
import { readDocumentFile } from './documentFiles';
import { audienceReaches, isoDate, slug } from './dto';
import { normalizeTerm, type Paging } from './fields';
import { challengeView, type ChallengeView } from './gameViews';
import {
  templateOfMachine,
  topologyOfMachines,
  topologyOfTemplates,
  type TopologyNode,
} from './gameTopology';
import type { Actor } from './actor';
import { MARKDOWN_CUT_LINE, permissionName } from './workspaces';

// Gamespaces (wire reference §1.2, §2.2): the list the sidebar and the observer dashboard read,
// and GameState, what the play page renders. Launching and playing are the play service's
// (play/service.ts), grading is grading.ts's.

/** isActive = started && !ended && !expired (wire reference §2.2). */
export function isActive(
  g: Pick<GamespaceTable, 'startTime' | 'endTime' | 'expirationTime'>,
  now: number,
) {
  return g.startTime > 0 && g.endTime <= 0 && g.expirationTime > now;
}

/**
 * Over, as far as its machines go: ended (completed, solved, or ended by the janitor) or out of
 * time, whether or not the janitor has ended it yet (it waits for the player's grace). An
 * expiration of 0 is none set.
 */
export function isOver(g: Pick<GamespaceTable, 'endTime' | 'expirationTime'>, now: number) {
  return g.endTime > 0 || (g.expirationTime > 0 && g.expirationTime <= now);
}

/** The Gamespace list item (wire reference §2.2); `players` is not loaded here, as there. */
export function gamespaceDto(g: GamespaceTable, now: number) {
  return {
    id: g.id,
    workspaceId: g.workspaceId,
    managerId: g.managerId,
    managerName: g.managerName,
    audience: null,
    name: g.name,
    slug: slug(g.name),
    isActive: isActive(g, now),
    players: [],
    whenCreated: isoDate(g.whenCreated),
    startTime: isoDate(g.startTime),
    endTime: isoDate(g.endTime),
    expirationTime: isoDate(g.expirationTime),
  };
}

/** Player (wire reference §2.2). */
export function playerDto(p: PlayerTable) {
  const permission = permissionName(p.permission);
  return {
    gamespaceId: p.gamespaceId,
    subjectId: p.subjectId,
    subjectName: p.subjectName,
    permission,
    isManager: permission === 'manager',
  };
}

export type PlayerDto = ReturnType<typeof playerDto>;

/** VmState (wire reference §2.2): a machine as a player's page lists it. */
export interface VmState {
  id: string;
  name: string;
  isolationId: string;
  isRunning: boolean;
  isVisible: boolean;
}

export interface GameState {
  id: string | null;
  workspaceId: string | null;
  name: string;
  slug: string;
  managerId: string | null;
  managerName: string | null;
  markdown: string;
  audience: null;
  launchpointUrl: string | null;
  players: PlayerDto[];
  whenCreated: string;
  startTime: string;
  endTime: string;
  expirationTime: string;
  isActive: boolean;
  vms: VmState[];
  challenge: ChallengeView | null;
  variant: number;
  /**
   * Ours (not the reference's), for the play page's topology diagram: the machines the player
   * sees (or, before they exist, the visible templates that make them) and their networks' names.
   * Empty once the game is over.
   */
  topology: TopologyNode[];
  /**
   * Whether the caller may manage the gamespace (gs.CanManage: extend, end, deploy). Our own
   * field, added where the answer is made for one caller (GET gamespace/{id}, POST gamespace) so
   * that a page knows what to offer; the states of hub events, the same for every listener, have
   * none.
   */
  canManage?: boolean;
}

/**
 * A machine is visible unless its template is hidden (its template found as `templateOfMachine`
 * finds it, by the names machines take).
 */
export function isVisibleVm(
  name: string,
  variant: number,
  hidden: ReadonlyMap<string, boolean>,
): boolean {
  return !templateOfMachine(name, variant, hidden);
}

/** The document's part above the cut line (what a player reads before the start). */
export const aboveCut = (markdown: string) => markdown.split(MARKDOWN_CUT_LINE)[0] ?? '';

/** A workspace's markdown document as of `now`, '' when it has none. */
export async function readDocument(docsDir: string | undefined, workspaceId: string, now: number) {
  return docsDir ? readDocumentFile(join(docsDir, `${workspaceId}.md`), now) : '';
}

export interface GameStateOptions {
  /** The gamespace's players and its workspace's templates are read through these. */
  repositories: Pick<Repositories, 'players' | 'templates'>;
  driver: Pick<HypervisorDriver, 'machinesOf'>;
  /** Where workspace documents are (`{docsDir}/{workspaceId}.md`). */
  docsDir?: string;
  now: number;
  /**
   * allowPreview of the registration: the full document and the challenge before the start.
   * Only the registration response uses it; it is not stored.
   */
  preview?: boolean;
  launchpointUrl?: string | null;
  /** The gamespace's players when the caller read them already (in the game state's order). */
  players?: PlayerTable[];
}

const MAX_CHALLENGE_VIEWS = 1_000;
const challengeViews = new Map<string, { text: string; view: ChallengeView | null }>();

/**
 * The player's view of a gamespace's stored challenge. Every page load shows it, so the last
 * view of each gamespace is kept, valid while the stored text is the same.
 */
function challengeViewOf(g: Pick<GamespaceTable, 'id' | 'challenge'>): ChallengeView | null {
  const kept = challengeViews.get(g.id);
  if (kept && kept.text === g.challenge) return kept.view;
  const view = challengeView(parseChallengeText(g.challenge));
  challengeViews.delete(g.id);
  if (challengeViews.size >= MAX_CHALLENGE_VIEWS)
    challengeViews.delete(challengeViews.keys().next().value!);
  challengeViews.set(g.id, { text: g.challenge, view });
  return view;
}

/**
 * GameState (wire reference §2.2), what the play page renders: the document above the cut until
 * the start and whole after, the machines only while active (hidden templates left out), the
 * challenge only once started (or previewed) and when the variant has question sets. It is the
 * same for everyone allowed to load it, which lets the play service keep one per gamespace.
 */
export async function gameState(g: GamespaceTable, options: GameStateOptions): Promise<GameState> {
  const { repositories, now } = options;
  const started = g.startTime > 0;
  const active = isActive(g, now);
  const players = options.players ?? (await repositories.players.of(g.id));
  const document = g.workspaceId ? await readDocument(options.docsDir, g.workspaceId, now) : '';
  const full = started || !!options.preview;
  // Not started yet, nor over unstarted: the topology shows what its machines will be.
  const ahead = !started && !isOver(g, now);
  // One read gives both the machines' visibility and the topology's networks.
  const templates =
    (active || ahead) && g.workspaceId
      ? await repositories.templates.visibilityInWorkspace(g.workspaceId)
      : [];
  let vms: VmState[] = [];
  if (active) {
    const hidden = new Map(templates.map((t) => [t.name, !!t.isHidden]));
    vms = (await options.driver.machinesOf(g.id))
      .map((vm) => ({
        id: vm.id,
        name: untagged(vm.name),
        isolationId: g.id,
        isRunning: vm.state === 'running',
        isVisible: isVisibleVm(untagged(vm.name), g.variant, hidden),
      }))
      .filter((vm) => vm.isVisible)
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
  const topology =
    vms.length > 0
      ? topologyOfMachines(vms, g.variant, templates)
      : active || ahead
        ? topologyOfTemplates(templates, g.variant)
        : [];
  return {
    id: g.id,
    workspaceId: g.workspaceId,
    name: g.name,
    slug: slug(g.name),
    managerId: g.managerId,
    managerName: g.managerName,
    markdown: full ? document : aboveCut(document),
    audience: null,
    launchpointUrl: options.launchpointUrl ?? null,
    players: players.map(playerDto),
    whenCreated: isoDate(g.whenCreated),
    startTime: isoDate(g.startTime),
    endTime: isoDate(g.endTime),
    expirationTime: isoDate(g.expirationTime),
    isActive: active,
    vms,
    challenge: full ? challengeViewOf(g) : null,
    variant: g.variant,
    topology,
  };
}

export interface GamespaceSearch extends Paging {
  term?: string;
  filter: string[];
}

export function createGamespaceService(
  repos: Pick<Repositories, 'gamespaces' | 'workspaces'>,
  clock: Clock = realClock,
) {
  const { gamespaces, workspaces } = repos;
  return {
    /**
     * `all` takes effect for observers and above (observers see gamespaces of workspaces whose
     * audience matches their scope, admins everything) and only then is `term` applied; anyone
     * else sees the gamespaces they manage or play in. `active` = not ended and not expired.
     */
    async list(actor: Actor, search: GamespaceSearch) {
      const t = clock.now();
      const all = search.filter.includes('all') && actor.isObserver;
      let rows = await gamespaces.search({
        active: search.filter.includes('active'),
        // 'inactive' is the gamespace browser's other toggle; the reference ignores it (and so
        // lists both), we list what it asks for: the ended or expired ones.
        inactive: search.filter.includes('inactive'),
        now: t,
        ...(all ? { term: normalizeTerm(search.term) } : { memberId: actor.id }),
      });
      if (all && !actor.isAdmin) {
        const audiences = new Map((await workspaces.audiences()).map((w) => [w.id, w.audience]));
        rows = rows.filter((g) => audienceReaches(audiences.get(g.workspaceId ?? ''), actor.scope));
      }
      return rows.slice(search.skip, search.skip + search.take).map((g) => gamespaceDto(g, t));
    },
  };
}

export type GamespaceService = ReturnType<typeof createGamespaceService>;
