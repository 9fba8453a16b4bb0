import { parseChallengeText, type ChallengeSpec } from '../../src/domain/challenge';
import { points } from '../../src/domain/graders';
import { resultsFileName } from '../../src/domain/results';
import type { Clock } from '../clock';
import type { Repositories } from '../store/repositories';
import type { ResultRepository, ResultRow, ResultRows } from '../store/repositories/results';
import type { PlayerTable } from '../store/schema';
import type { Actor } from './actor';
import { toCsv, type CsvCell } from './csv';
import { audienceReaches, isoDate } from './dto';
import { forbidden, notFound } from './errors';
import { asId } from './ids';
import { isActive } from './gamespaces';
import { permissionName } from './workspaces';

// Results (ours): every gamespace of a workspace with its players, times, score per question set
// and attempts, for the observers' results table and its CSV; and a player's own games, for the
// home page's history.
//
// Readers of a workspace's results: administrators, and observers whose scope its audience
// reaches (the gamespace browser's rule, audienceReaches, as the event log's readers). Its
// workers are not: the reference shows them how many of its gamespaces are under way and lets
// them end them (ws.CanEdit: stats, DELETE games), but lists them, with their challenges and
// scores, only to observers (api/gamespaces?filter=all, api/gamespace/{id}/challenge). A
// caller's own games are answered to that caller only, whoever else asks.

export interface QuestionSetResult {
  /** The set's name, or "Question set {n}" for one without. */
  name: string;
  /** In points. */
  score: number;
  /** The points its questions are worth. */
  maxScore: number;
  /** Submissions to this set. */
  attempts: number;
}

export interface ResultPlayer {
  id: string;
  name: string;
  isManager: boolean;
}

export interface GameResult {
  gamespaceId: string;
  workspaceId: string | null;
  /** The gamespace's name: its workspace's name when it was launched. */
  name: string;
  managerId: string;
  managerName: string;
  /** Every player, the manager among them; a team when there are several. */
  players: ResultPlayer[];
  isTeam: boolean;
  whenCreated: string;
  startTime: string;
  /** When it ended; unset while it runs. One that ran out of time ends at its expiration. */
  endTime: string;
  expirationTime: string;
  /** From the start to the end (or now while it runs); 0 when it never started. */
  secondsUsed: number;
  /** Started and neither ended nor out of time. */
  isRunning: boolean;
  /** In points. */
  score: number;
  maxPoints: number;
  questionSets: QuestionSetResult[];
  /** Submissions over every set, as the reference counts them against maxAttempts. */
  attempts: number;
  /** Per set; 0 is no limit. */
  maxAttempts: number;
}

export interface WorkspaceResults {
  workspaceId: string;
  workspaceName: string;
  /** The time the answer was made: the running games' time used is counted to it. */
  now: string;
  games: GameResult[];
}

/** The gamespace's end as far as time used goes: its end, its expiration once passed, or now. */
function endOf(g: ResultRow, now: number): number {
  if (g.endTime > 0) return g.endTime;
  if (g.expirationTime > 0 && g.expirationTime <= now) return g.expirationTime;
  return now;
}

function specOf(text: string): ChallengeSpec | null {
  try {
    return parseChallengeText(text);
  } catch {
    // A stored spec that no longer reads still has a row in the table, without a score.
    return null;
  }
}

function playerOf(p: PlayerTable): ResultPlayer {
  return {
    id: p.subjectId,
    name: p.subjectName,
    isManager: permissionName(p.permission) === 'manager',
  };
}

/** One gamespace's result at `now`. */
export function gameResult(g: ResultRow, players: PlayerTable[], now: number): GameResult {
  const spec = specOf(g.challenge);
  const maxPoints = spec?.maxPoints ?? 0;
  const submissions = spec?.submissions ?? [];
  const sections = spec?.challenge?.sections ?? [];
  const end = endOf(g, now);
  return {
    gamespaceId: g.id,
    workspaceId: g.workspaceId,
    name: g.name,
    managerId: g.managerId,
    managerName: g.managerName,
    players: players.map(playerOf),
    isTeam: players.length > 1,
    whenCreated: isoDate(g.whenCreated),
    startTime: isoDate(g.startTime),
    endTime: isoDate(g.endTime > 0 ? g.endTime : end < now ? end : 0),
    expirationTime: isoDate(g.expirationTime),
    secondsUsed: g.startTime > 0 ? Math.max(0, Math.floor((end - g.startTime) / 1000)) : 0,
    isRunning: isActive(g, now),
    score: points(spec?.score ?? 0, maxPoints),
    maxPoints,
    questionSets: sections.map((s, i) => ({
      name: s.name || `Question set ${i + 1}`,
      score: points(s.score, maxPoints),
      maxScore: points(
        s.questions.reduce((total, q) => total + q.weight, 0),
        maxPoints,
      ),
      attempts: submissions.filter((sub) => sub.sectionIndex === i).length,
    })),
    attempts: submissions.length,
    maxAttempts: spec?.maxAttempts ?? 0,
  };
}

const resultsOf = ({ games, players }: ResultRows, now: number) =>
  games.map((g) => gameResult(g, players.get(g.id) ?? [], now));

/** Whether the actor may read the results of a workspace of this audience. */
export function mayReadResults(actor: Actor, audience: string | null | undefined): boolean {
  if (actor.isAdmin) return true;
  if (!actor.isObserver || actor.isAgent || actor.grant) return false;
  return audienceReaches(audience, actor.scope);
}

/** The results as a CSV file: one row per gamespace, a score and attempts column per set. */
export function resultsCsv(results: WorkspaceResults): string {
  const sets = Math.max(0, ...results.games.map((g) => g.questionSets.length));
  const setColumns = Array.from({ length: sets }, (_, i) => [
    `set ${i + 1} name`,
    `set ${i + 1} score`,
    `set ${i + 1} attempts`,
  ]).flat();
  const header = [
    'gamespace',
    'workspace',
    'players',
    'team',
    'manager',
    'started',
    'ended',
    'seconds used',
    'running',
    'score',
    'max points',
    'attempts',
    'max attempts',
    ...setColumns,
  ];
  const date = (iso: string) => (iso.startsWith('0001-') ? '' : iso);
  const rows = results.games.map((g): CsvCell[] => [
    g.gamespaceId,
    g.name,
    g.players.map((p) => p.name).join('; '),
    g.isTeam,
    g.managerName,
    date(g.startTime),
    date(g.endTime),
    g.secondsUsed,
    g.isRunning,
    g.score,
    g.maxPoints,
    g.attempts,
    g.maxAttempts,
    ...Array.from({ length: sets }, (_, i) => {
      const set = g.questionSets[i];
      return set ? [set.name, set.score, set.attempts] : ['', '', ''];
    }).flat(),
  ]);
  return toCsv([header, ...rows]);
}

/** The CSV's file name (the SPA saves it under the same). */
export const fileNameOf = (results: WorkspaceResults): string =>
  resultsFileName(results.workspaceName, results.now);

export function createResultService(deps: {
  repositories: Pick<Repositories, 'workspaces'>;
  results: ResultRepository;
  clock: Clock;
}) {
  return {
    /** GET /api/workspace/{id}/results: 400 ResourceNotFound, 403 for no reach. */
    async ofWorkspace(actor: Actor, id: unknown): Promise<WorkspaceResults> {
      const key = asId(id);
      const ws = key ? await deps.repositories.workspaces.find(key) : undefined;
      if (!ws) throw notFound();
      if (!mayReadResults(actor, ws.audience)) throw forbidden();
      const now = deps.clock.now();
      return {
        workspaceId: ws.id,
        workspaceName: ws.name,
        now: isoDate(now),
        games: resultsOf(await deps.results.ofWorkspace(ws.id), now),
      };
    },

    /** GET /api/my/results: the caller's own games, as manager or player; nobody else's. */
    async ofCaller(actor: Actor): Promise<GameResult[]> {
      if (actor.isAgent || actor.grant) throw forbidden();
      const now = deps.clock.now();
      return resultsOf(await deps.results.ofSubject(actor.id), now);
    },
  };
}

export type ResultService = ReturnType<typeof createResultService>;
