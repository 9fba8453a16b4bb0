import {
  alertSentence,
  isCanaryAnswer,
  sharedAnswerOwners,
  type AlertKind,
  type GeneratedAnswer,
} from '../../src/domain/alerts';
import { parseChallengeText, type ChallengeSpec } from '../../src/domain/challenge';
import type { Clock } from '../clock';
import type { Repositories } from '../store/repositories';
import type { AlertTable, GamespaceTable } from '../store/schema';
import type { Actor } from './actor';
import { isoDate } from './dto';
import { forbidden } from './errors';
import type { GameEventLog } from './gameEvents';
import { MAX_EVENT_TEXT } from './gameEventLog';
import { newId } from './ids';

// Answer-sharing alerts (src/domain/alerts.ts): after a submission is graded, each of its
// answers graded wrong is compared, by the question's grader, with the answers the workspace's
// other gamespaces of the same variant were generated for that question, and with the question's
// canary answers. A match is stored as an alert and recorded as an `alert` game event of the
// submitting gamespace, which the observe feed tells the workspace's observers. Nothing of it
// reaches the player: the grading and its answer are done before this runs, the event log and
// the observe channel are for observers only.
//
// Cost: per answer graded wrong, one query for the ids of the workspace's gamespaces of that
// variant (index gamespaces_workspace), then the grader over their answers. Each gamespace's
// generated answers are read from its stored challenge once and kept here (they are fixed at
// registration; a regrade here forgets them): with 500 gamespaces the first check of a
// workspace reads 500 challenges, each later one only the ids.

/** How many gamespaces' answers are kept; past it the memory starts over. */
const ANSWER_MEMORY = 20_000;
/**
 * Challenges are read and parsed this many at a time (a 16 KB challenge parses in about 0.3 ms
 * on SQLite, read and all): the first check of 500 gamespaces holds the process ~30 ms at most.
 */
const READ_CHUNK = 50;
/** The most alerts one read answers. */
export const ALERT_LIST_LIMIT = 200;
/** How many stored alerts an observer's read of every workspace looks through. */
const ALERT_SCAN_LIMIT = 2_000;
/** Question texts are shortened to this in an alert. */
export const ALERT_QUESTION_TEXT = 120;

/** An alert over the wire (GET /api/alerts). */
export interface AlertDto {
  id: string;
  /** ISO 8601. */
  at: string;
  workspaceId: string;
  kind: AlertKind;
  /** The submitting gamespace. */
  gamespaceId: string;
  /** The gamespace whose generated answer was submitted; null for a canary. */
  otherGamespaceId: string | null;
  question: {
    sectionIndex: number;
    sectionName: string | null;
    questionIndex: number;
    /** Shortened to ALERT_QUESTION_TEXT characters. */
    text: string;
  };
  submitterNames: string;
  ownerNames: string;
  /** The answer submitted (another gamespace's flag): observers may see it, players never. */
  answer: string;
  /** The alert in one sentence (alertSentence). */
  text: string;
}

export const alertDto = (row: AlertTable): AlertDto => {
  const facts = {
    kind: (row.kind === 'canary' ? 'canary' : 'shared') as AlertKind,
    submitterNames: row.submitterNames,
    ownerNames: row.ownerNames,
    sectionIndex: row.sectionIndex,
    sectionName: row.sectionName || null,
    questionIndex: row.questionIndex,
  };
  return {
    id: row.id,
    at: isoDate(Number(row.at)),
    workspaceId: row.workspaceId,
    kind: facts.kind,
    gamespaceId: row.gamespaceId,
    otherGamespaceId: row.otherGamespaceId,
    question: {
      sectionIndex: row.sectionIndex,
      sectionName: facts.sectionName,
      questionIndex: row.questionIndex,
      text: row.questionText,
    },
    submitterNames: row.submitterNames,
    ownerNames: row.ownerNames,
    answer: row.answer,
    text: alertSentence(facts),
  };
};

const shortened = (text: string, max: number) =>
  text.length <= max ? text : `${text.slice(0, max - 1)}…`;

/** The generated answers of a stored challenge: [section][question]. */
export const generatedAnswers = (challenge: string): string[][] =>
  (parseChallengeText(challenge).challenge?.sections ?? []).map((s) =>
    s.questions.map((q) => q.answer),
  );

export interface AnswerAlertDeps {
  repositories: Pick<Repositories, 'alerts' | 'players'>;
  gameEvents: GameEventLog;
  clock: Clock;
  log: { warn(obj: object, msg: string): void };
  /** Who may read a gamespace's events: the alerts' readers too (createGameEventReader). */
  mayRead(actor: Actor, g: { workspaceId: string | null | undefined }): Promise<boolean>;
}

/** What a submission that was stored tells the alerts. */
export interface GradedSubmission {
  gamespace: Pick<GamespaceTable, 'id' | 'workspaceId' | 'variant' | 'managerName'>;
  actor: Pick<Actor, 'id' | 'name'>;
  /** The spec after grading. */
  spec: ChallengeSpec;
  sectionIndex: number;
  answers: ReadonlyArray<{ answer: string }>;
}

export function createAnswerAlerts(deps: AnswerAlertDeps) {
  const { repositories, gameEvents, clock, log } = deps;
  const answersOf = new Map<string, string[][]>();

  /** The generated answers of the workspace's other gamespaces of the variant, to question j. */
  async function othersAnswers(
    g: GradedSubmission['gamespace'],
    sectionIndex: number,
    questionIndex: number,
  ): Promise<GeneratedAnswer[]> {
    if (!g.workspaceId) return [];
    const ids = await repositories.alerts.gamespacesPlaying(g.workspaceId, g.variant, g.id);
    const unread = ids.filter((id) => !answersOf.has(id));
    if (unread.length > 0 && answersOf.size + unread.length > ANSWER_MEMORY) answersOf.clear();
    for (let i = 0; i < unread.length; i += READ_CHUNK) {
      // Other requests go on between chunks: SQLite reads block the process while they run.
      if (i > 0) await new Promise((resolve) => setImmediate(resolve));
      for (const row of await repositories.alerts.challengesOf(unread.slice(i, i + READ_CHUNK))) {
        answersOf.set(row.id, generatedAnswers(row.challenge));
      }
    }
    return ids.flatMap((id) => {
      const answer = answersOf.get(id)?.[sectionIndex]?.[questionIndex];
      return answer === undefined ? [] : [{ gamespaceId: id, answer }];
    });
  }

  async function namesOf(ids: string[], fallback: Map<string, string>) {
    const names = await repositories.players.namesIn(ids);
    return (id: string) =>
      names.get(id)?.filter(Boolean).join(', ') ||
      fallback.get(id) ||
      `Gamespace ${id.slice(0, 8)}`;
  }

  async function store(
    s: GradedSubmission,
    found: { kind: AlertKind; owners: string[]; questionIndex: number; answer: string },
  ) {
    const section = s.spec.challenge!.sections[s.sectionIndex]!;
    const question = section.questions[found.questionIndex]!;
    const other = found.owners[0] ?? null;
    const name = await namesOf(
      [s.gamespace.id, ...(other ? [other] : [])],
      new Map([[s.gamespace.id, s.gamespace.managerName]]),
    );
    const more = found.owners.length - 1;
    const row: AlertTable = {
      id: newId(),
      at: clock.now(),
      workspaceId: s.gamespace.workspaceId!,
      kind: found.kind,
      gamespaceId: s.gamespace.id,
      otherGamespaceId: other,
      sectionIndex: s.sectionIndex,
      sectionName: section.name ?? '',
      questionIndex: found.questionIndex,
      questionText: shortened(question.text, ALERT_QUESTION_TEXT),
      submitterNames: shortened(name(s.gamespace.id), MAX_EVENT_TEXT),
      ownerNames: other
        ? shortened(`${name(other)}${more > 0 ? ` and ${more} more` : ''}`, MAX_EVENT_TEXT)
        : '',
      answer: shortened(found.answer, MAX_EVENT_TEXT),
    };
    await repositories.alerts.append(row);
    await gameEvents.record({
      gamespaceId: s.gamespace.id,
      kind: 'alert',
      actorId: s.actor.id,
      actorName: s.actor.name,
      detail: alertDto(row).text,
      at: row.at,
    });
  }

  async function check(s: GradedSubmission): Promise<void> {
    const section = s.spec.challenge?.sections[s.sectionIndex];
    if (!section || !s.gamespace.workspaceId) return;
    for (const [j, q] of section.questions.entries()) {
      const submitted = s.answers[j]?.answer ?? '';
      // Graded wrong by this submission (a question once right stays right and is not graded).
      if (q.isCorrect || submitted.trim() === '') continue;
      if (isCanaryAnswer(q.grader, q.answer, q.canaries, submitted)) {
        await store(s, { kind: 'canary', owners: [], questionIndex: j, answer: submitted });
        continue;
      }
      const others = await othersAnswers(s.gamespace, s.sectionIndex, j);
      const owners = sharedAnswerOwners(q.grader, q.answer, submitted, others);
      if (owners.length > 0) {
        await store(s, { kind: 'shared', owners, questionIndex: j, answer: submitted });
      }
    }
  }

  return {
    /**
     * Looks for alerts in a stored submission. Resolves once they are stored and never rejects:
     * a failure is logged, the submission it concerns stays as graded.
     */
    async submitted(s: GradedSubmission): Promise<void> {
      try {
        await check(s);
      } catch (err) {
        log.warn({ err, gamespaceId: s.gamespace.id }, 'looking for answer-sharing alerts failed');
      }
    },

    /** Forgets a gamespace's generated answers (a regrade copied others in). */
    forget(gamespaceId: string): void {
      answersOf.delete(gamespaceId);
    },

    /**
     * GET /api/alerts?workspaceId=: the newest alerts, of one workspace or of every workspace the
     * actor may observe. Administrators read all; observers those of workspaces whose audience
     * reaches them (the event log's rule, mayRead); everyone else is refused.
     */
    async list(actor: Actor, workspaceId: unknown): Promise<AlertDto[]> {
      // Whoever mayRead refuses every workspace is refused outright (players, agents, grants).
      if (!actor.isAdmin && (!actor.isObserver || actor.isAgent || actor.grant)) throw forbidden();
      if (typeof workspaceId === 'string' && workspaceId !== '') {
        if (!(await deps.mayRead(actor, { workspaceId }))) throw forbidden();
        const rows = await repositories.alerts.list({ workspaceId, limit: ALERT_LIST_LIMIT });
        return rows.map(alertDto);
      }
      if (actor.isAdmin) {
        return (await repositories.alerts.list({ limit: ALERT_LIST_LIMIT })).map(alertDto);
      }
      const reach = new Map<string, Promise<boolean>>();
      const mayRead = (id: string) => {
        if (!reach.has(id)) reach.set(id, deps.mayRead(actor, { workspaceId: id }));
        return reach.get(id)!;
      };
      const rows = await repositories.alerts.list({ limit: ALERT_SCAN_LIMIT });
      const readable: AlertTable[] = [];
      for (const row of rows) {
        if (readable.length >= ALERT_LIST_LIMIT) break;
        if (await mayRead(row.workspaceId)) readable.push(row);
      }
      return readable.map(alertDto);
    },
  };
}

export type AnswerAlerts = ReturnType<typeof createAnswerAlerts>;
