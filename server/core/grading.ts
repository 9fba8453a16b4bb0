import {
  parseChallengeText,
  UNSET_DATE,
  type ChallengeSpec,
  type SectionSpec,
  type SectionSubmission,
  type VariantSpec,
} from '../../src/domain/challenge';
import { grade, isSectionEligible, sectionScore } from '../../src/domain/graders';
import { realClock, type Clock } from '../clock';
import type { Repositories } from '../store/repositories';
import type { GamespaceTable } from '../store/schema';
import { audienceReaches, isoDate } from './dto';
import { DomainError, forbidden } from './errors';
import { actorRef, unknownArgument, type Publisher } from './fields';
import type { GameEventLog } from './gameEvents';
import { NO_GAME_EVENTS } from './gameEventLog';
import { sha256Hex } from './ids';
import { challengeProgress, type ChallengeProgressView } from './gameViews';
import { isActive } from './gamespaces';
import type { Actor } from './actor';
import type { AnswerAlerts } from './answerAlerts';

// Grading (wire reference §4.4): a player's or an agent's answers to one question set, graded
// under the gamespace's lock and stored before the answer goes back, so that an acknowledged
// submission is never lost and concurrent ones are neither lost nor counted twice.

/**
 * A score reached by adding float weights may miss 1 by a rounding error although every
 * question is correct (the weights were normalized to add up to 1); anything this close is full.
 */
const FULL_SCORE_EPSILON = 1e-9;

export const isFullScore = (score: number) => score >= 1 - FULL_SCORE_EPSILON;

/** A submission as a client sends it (the body of POST api/gamespace/grade). */
export interface SubmissionInput {
  id: string;
  sectionIndex: number;
  questions: Array<{ answer: string }>;
}

const joined = (questions: ReadonlyArray<{ answer: string }>) =>
  questions.map((q) => q.answer).join('|');

/**
 * No-ops (§4.4 step 1): a submission whose answers, joined with `|`, equal an earlier one in any
 * section, or whose answers are all blank. They are answered with the current state and neither
 * counted nor checked (not even the section index).
 */
export function isNoOp(spec: Pick<ChallengeSpec, 'submissions'>, input: SubmissionInput): boolean {
  if (input.questions.every((q) => q.answer.trim() === '')) return true;
  const key = joined(input.questions);
  return spec.submissions.some((s) => joined(s.questions) === key);
}

/** The section's score and the spec's total score recomputed from the questions. */
function scored(spec: ChallengeSpec, variant: VariantSpec): ChallengeSpec {
  const sections = variant.sections.map((s) => ({ ...s, score: sectionScore(s) }));
  return {
    ...spec,
    score: sections.reduce((total, s) => total + s.score, 0),
    challenge: { ...variant, sections },
  };
}

/** The section with each question graded against the answer at the same position. */
function gradeSection(section: SectionSpec, answers: ReadonlyArray<{ answer: string }>) {
  return {
    ...section,
    questions: section.questions.map((q, i) => ({ ...q, ...grade(q, answers[i]?.answer ?? '') })),
  };
}

/** Applies a stored submission: grades its section, rescores, moves lastScoreTime on a gain. */
function apply(spec: ChallengeSpec, submission: SectionSubmission): ChallengeSpec {
  const variant = spec.challenge!;
  const sections = variant.sections.map((s, i) =>
    i === submission.sectionIndex ? gradeSection(s, submission.questions) : s,
  );
  const next = scored(spec, { ...variant, sections });
  return next.score > spec.score ? { ...next, lastScoreTime: submission.timestamp } : next;
}

export interface SubmitResult {
  spec: ChallengeSpec;
  /** False for a no-op: nothing to store. */
  accepted: boolean;
  /** The gamespace ends now (full score, or the attempts are used up). */
  completed: boolean;
}

/**
 * One submission against the gamespace's spec (§4.4 Submit). Rejections come in the reference's
 * order: a bad section index, an inactive gamespace, this section's attempts used up, a set still
 * locked by its prerequisites. The gamespace completes at full score or when the number of
 * submissions over *all* sections reaches maxAttempts: the reference's quirk, kept because
 * clients that count attempts (Gameboard) count them that way, although the limit that rejects a
 * submission is per section.
 */
export function submit(
  spec: ChallengeSpec,
  input: SubmissionInput,
  context: { active: boolean; now: number },
): SubmitResult {
  if (isNoOp(spec, input)) return { spec, accepted: false, completed: false };
  const variant = spec.challenge;
  const section = variant?.sections[input.sectionIndex];
  if (!variant || !section || !Number.isInteger(input.sectionIndex)) {
    throw new DomainError('InvalidOperation');
  }
  if (!context.active) throw new DomainError('GamespaceIsExpired');
  const inSection = spec.submissions.filter((s) => s.sectionIndex === input.sectionIndex).length;
  if (spec.maxAttempts > 0 && inSection >= spec.maxAttempts) {
    throw new DomainError('AttemptLimitReached');
  }
  if (!isSectionEligible(variant, input.sectionIndex)) {
    throw new DomainError('QuestionSetLockedByPreReq');
  }
  const submission: SectionSubmission = {
    id: input.id,
    timestamp: isoDate(context.now),
    sectionIndex: input.sectionIndex,
    questions: input.questions.map((q) => ({ answer: q.answer })),
  };
  const next = apply({ ...spec, submissions: [...spec.submissions, submission] }, submission);
  const completed =
    isFullScore(next.score) ||
    (spec.maxAttempts > 0 && next.submissions.length === spec.maxAttempts);
  return { spec: next, accepted: true, completed };
}

/** Every question back to ungraded, every score to 0. */
function ungraded(spec: ChallengeSpec, variant: VariantSpec): ChallengeSpec {
  return scored(
    { ...spec, score: 0, lastScoreTime: UNSET_DATE },
    {
      ...variant,
      sections: variant.sections.map((s) => ({
        ...s,
        questions: s.questions.map((q) => ({ ...q, isCorrect: false, isGraded: false })),
      })),
    },
  );
}

/**
 * Regrade (§4.4): the graders and answers of the workspace's current variant are copied into the
 * gamespace's copy by position, then every stored submission is graded again in order, stopping
 * at the first full score (`completed`). The reference advances its section pointer once per
 * question while copying, which copies the wrong question's answer (or fails) as soon as a
 * section has more than one question; this copies section i, question j from section i,
 * question j.
 */
export function regrade(
  spec: ChallengeSpec,
  source: Pick<VariantSpec, 'sections'> | null,
): { spec: ChallengeSpec; completed: boolean } {
  const variant = spec.challenge;
  if (!variant) return { spec, completed: false };
  const updated: VariantSpec = {
    ...variant,
    sections: variant.sections.map((s, i) => ({
      ...s,
      questions: s.questions.map((q, j) => {
        const from = source?.sections[i]?.questions[j];
        return from ? { ...q, grader: from.grader, answer: from.answer } : q;
      }),
    })),
  };
  let next = ungraded(spec, updated);
  for (const submission of spec.submissions) {
    if (!next.challenge!.sections[submission.sectionIndex]) continue;
    next = apply(next, submission);
    if (isFullScore(next.score)) return { spec: next, completed: true };
  }
  return { spec: next, completed: false };
}

/** The gamespace row as a grading transaction sees it. */
export type GamespaceRow = GamespaceTable;

/** What an observer sees in place of the gamespace's grader key. */
export const HIDDEN_GRADER_KEY = '(hidden)';

/**
 * The spec without the gamespace's grader key, wherever a transform (`grader_key`, `api_key`)
 * put it: in the transforms and in any text it was substituted into. Quirk fixed: the reference
 * shows it to observers, who could then act as the gamespace's agent. The key is stored hashed,
 * so its plain value is recognized among the transforms' values by its hash. A key too short to
 * be told apart from ordinary text (a caller may choose its own) is hidden in the transforms only.
 */
export function withoutGraderKey(spec: ChallengeSpec, graderKeyHash: string): ChallengeSpec {
  const keys = new Set(
    spec.transforms
      .map((t) => t.value)
      .filter((value) => value !== '' && sha256Hex(value) === graderKeyHash),
  );
  if (keys.size === 0) return spec;
  const hidden: ChallengeSpec = {
    ...spec,
    transforms: spec.transforms.map((t) =>
      keys.has(t.value) ? { ...t, value: HIDDEN_GRADER_KEY } : t,
    ),
  };
  let text = JSON.stringify(hidden);
  for (const key of keys) {
    if (key.length >= MIN_SUBSTITUTED_KEY) {
      text = text.split(JSON.stringify(key).slice(1, -1)).join(HIDDEN_GRADER_KEY);
    }
  }
  return JSON.parse(text) as ChallengeSpec;
}

/** Keys at least this long are also hidden where a transform substituted them into text. */
const MIN_SUBSTITUTED_KEY = 8;

export interface GradingDeps {
  repositories: Pick<Repositories, 'gamespaces' | 'players' | 'workspaces'>;
  publisher: Publisher;
  /** GameState of a gamespace (the play service's view). */
  gameState(row: GamespaceRow): Promise<GameStateLike>;
  /** Told of a gamespace a submission or a regrade ended: its machines go (play/removal.ts). */
  ended(gamespaceId: string): void;
  /** The server's time: when a submission is made and a game ends. */
  clock?: Clock;
  /** The gamespaces' event log: submissions with their score, and the ends they cause. */
  gameEvents?: GameEventLog;
  /**
   * Ours: told of each stored submission, to look for answer-sharing alerts (answerAlerts.ts).
   * Not awaited: what the player is answered does not wait for it nor depend on it.
   */
  alerts?: Pick<AnswerAlerts, 'submitted' | 'forget'>;
}

/** What grading needs to know of GameState: its challenge's questions, to copy answers into. */
export interface GameStateLike {
  challenge?: { sectionIndex: number; questions: Array<{ answer: string }> } | null;
}

/**
 * The state answered to a submission: the submitted answers copied into its questions by
 * position (§4.4 step 6), while it still shows the set submitted (completing a set moves the view
 * on to the next one, whose questions those answers are not). A copy, never the state itself:
 * gamespaces.ts keeps each gamespace's challenge view for every later reader.
 */
export function withSubmittedAnswers<S extends GameStateLike>(
  state: S,
  input: Pick<SubmissionInput, 'sectionIndex' | 'questions'>,
): S {
  const challenge = state.challenge;
  if (!challenge || challenge.sectionIndex !== input.sectionIndex) return state;
  const questions = challenge.questions.map((q, i) => ({
    ...q,
    answer: input.questions[i]?.answer ?? '',
  }));
  return { ...state, challenge: { ...challenge, questions } };
}

export function createGradingService(deps: GradingDeps) {
  const { publisher } = deps;
  const clock = deps.clock ?? realClock;
  const now = () => clock.now();
  const repos = deps.repositories;
  const gameEvents = deps.gameEvents ?? NO_GAME_EVENTS;

  /**
   * One writer per gamespace. In this process a promise chain per gamespace keeps submissions
   * from queueing for database locks (and pool connections); across server processes the
   * transaction's row lock does (see `changeLocked`), so no other process can read the same
   * spec and overwrite this one's submission.
   */
  const queues = new Map<string, Promise<unknown>>();
  function serialized<T>(id: string, work: () => Promise<T>): Promise<T> {
    const previous = queues.get(id) ?? Promise.resolve();
    const run = previous.then(work, work);
    const tail = run.catch(() => undefined);
    queues.set(id, tail);
    void tail.then(() => {
      if (queues.get(id) === tail) queues.delete(id);
    });
    return run;
  }

  /** Reads the row under its lock, lets `change` compute new values, writes them, commits. */
  function locked<T>(
    id: string,
    change: (row: GamespaceRow) => { set: Partial<GamespaceRow> | null; result: T },
  ): Promise<{ row: GamespaceRow; result: T }> {
    return serialized(id, async () => {
      const changed = await repos.gamespaces.changeLocked(id, change);
      if (!changed) throw unknownArgument('id');
      return changed;
    });
  }

  async function load(id: unknown): Promise<GamespaceRow> {
    const key = typeof id === 'string' && id.length > 0 && id.length <= 64 ? id : null;
    const row = key ? await repos.gamespaces.find(key) : undefined;
    if (!row) throw unknownArgument('id');
    return row;
  }

  async function isPlayer(actor: Actor, gamespaceId: string, managers = false) {
    const permission = await repos.players.permissionOf(gamespaceId, actor.id);
    return managers ? permission === MANAGER_PERMISSION : permission !== null;
  }

  /** gs.CanInteract, or the gamespace's own grader key; admins always. */
  async function canInteract(actor: Actor, row: GamespaceRow) {
    if (actor.isAdmin || actor.id === row.id) return true;
    if (actor.isAgent) return false;
    return row.managerId === actor.id || (await isPlayer(actor, row.id));
  }

  /** gs.CanManage: the manager, or a player with the Manager permission; admins always. */
  async function canManage(actor: Actor, row: GamespaceRow) {
    if (actor.isAdmin) return true;
    if (actor.isAgent) return false;
    return row.managerId === actor.id || (await isPlayer(actor, row.id, true));
  }

  /** Observers see the challenges of workspaces whose audience matches their scope. */
  async function canObserve(actor: Actor, row: GamespaceRow) {
    if (actor.isAdmin) return true;
    if (!actor.isObserver || actor.isAgent || !row.workspaceId) return false;
    const ws = await repos.workspaces.find(row.workspaceId);
    return !!ws && audienceReaches(ws.audience, actor.scope);
  }

  async function stateOf(row: GamespaceRow) {
    return deps.gameState(row);
  }

  function announce(row: GamespaceRow, actor: Actor, state: unknown) {
    publisher.publish(row.id, 'GameEvent', {
      action: 'GAME.UPDATE',
      actor: actorRef(actor),
      model: state,
    });
  }

  /**
   * A stored submission in the event log: the question set and how many of its questions are
   * now correct; `score` the game's points after it, as the gamespace browser shows them.
   */
  function recordSubmission(id: string, actor: Actor, spec: ChallengeSpec, sectionIndex: number) {
    const section = spec.challenge?.sections[sectionIndex];
    const questions = section?.questions ?? [];
    const correct = questions.filter((q) => q.isCorrect).length;
    const points = Math.round(spec.score * spec.maxPoints);
    void gameEvents.record({
      gamespaceId: id,
      kind: 'submission',
      actorId: actor.id,
      actorName: actor.name,
      detail: `${section?.name || `Question set ${sectionIndex + 1}`}: ${correct} of ${questions.length} correct, ${points} of ${spec.maxPoints} points`,
      score: points,
    });
  }

  return {
    /** GET api/gamespace/{id}/challenge/progress: grader key or gs.CanInteract. */
    async progress(actor: Actor, id: unknown): Promise<ChallengeProgressView> {
      const row = await load(id);
      if (!(await canInteract(actor, row))) throw forbidden();
      return challengeProgress(parseChallengeText(row.challenge), row, now());
    },

    /** GET api/gamespace/{id}/challenge: the whole spec, answers included (admins, observers). */
    async challenge(actor: Actor, id: unknown): Promise<ChallengeSpec & { variant: number }> {
      const row = await load(id);
      if (!(await canObserve(actor, row))) throw forbidden();
      const spec = parseChallengeText(row.challenge);
      // The variant played (0-based), which the spec's own copy of it does not name: the
      // gamespace browser's summary shows it.
      const shown = actor.isAdmin ? spec : withoutGraderKey(spec, row.graderKey);
      return { ...shown, variant: row.variant };
    },

    /**
     * POST api/gamespace/grade. The submission is stored (committed) before this resolves; the
     * state goes to the gamespace's group as GAME.UPDATE and back to the caller with the
     * submitted answers in its questions (the reference copies them by position, §4.4 step 6).
     */
    async grade(actor: Actor, input: SubmissionInput) {
      const before = await load(input.id);
      if (!(await canInteract(actor, before))) throw forbidden();
      const { row, result } = await locked(before.id, (current) => {
        const t = now();
        const outcome = submit(parseChallengeText(current.challenge), input, {
          active: isActive(current, t),
          now: t,
        });
        if (!outcome.accepted) return { set: null, result: outcome };
        return {
          set: {
            challenge: JSON.stringify(outcome.spec),
            ...(outcome.completed ? { endTime: t } : {}),
          },
          result: outcome,
        };
      });
      if (result.accepted) {
        recordSubmission(row.id, actor, result.spec, input.sectionIndex);
        void deps.alerts?.submitted({
          gamespace: row,
          actor,
          spec: result.spec,
          sectionIndex: input.sectionIndex,
          answers: input.questions,
        });
      }
      if (result.completed) {
        void gameEvents.record({
          gamespaceId: row.id,
          kind: 'complete',
          detail: isFullScore(result.spec.score) ? 'Full score' : 'No attempts left',
        });
      }
      const state = await stateOf(row);
      announce(row, actor, state);
      if (result.completed) deps.ended(row.id);
      return withSubmittedAnswers(state, input);
    },

    /** POST api/gamespace/{id}/regrade (gs.CanManage). */
    async regrade(actor: Actor, id: unknown) {
      const before = await load(id);
      if (!(await canManage(actor, before))) throw forbidden();
      const source = before.workspaceId
        ? await repos.workspaces.find(before.workspaceId)
        : undefined;
      const { row, result } = await locked(before.id, (current) => {
        const spec = parseChallengeText(current.challenge);
        const variant = source
          ? (parseChallengeText(source.challenge).variants[current.variant] ?? null)
          : null;
        const regraded = regrade(spec, variant);
        const ends = regraded.completed && current.endTime <= 0;
        return {
          set: { challenge: JSON.stringify(regraded.spec), ...(ends ? { endTime: now() } : {}) },
          result: { ends },
        };
      });
      deps.alerts?.forget(row.id);
      if (result.ends) deps.ended(row.id);
      return stateOf(row);
    },

    /** POST api/gamespace/{id}/audit (gs.CanManage): every stored submission. */
    async audit(actor: Actor, id: unknown): Promise<SectionSubmission[]> {
      const row = await load(id);
      if (!(await canManage(actor, row))) throw forbidden();
      return parseChallengeText(row.challenge).submissions;
    },
  };
}

/** Player.permission of a gamespace manager (the flags enum's Manager, 0xFF). */
const MANAGER_PERMISSION = 0xff;

export type GradingService = ReturnType<typeof createGradingService>;
