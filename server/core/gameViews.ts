import type {
  ChallengeSpec,
  QuestionSpec,
  SectionSpec,
  VariantSpec,
} from '../../src/domain/challenge';
import { isMatch, isSectionEligible, points } from '../../src/domain/graders';
import type { GamespaceTable } from '../store/schema';

// What a player sees of a gamespace's challenge (wire reference §2.3). Two views of the same
// stored spec with deliberately different units: the ChallengeView inside GameState (the SPA's
// quiz) shows one question set, without hidden questions, weights in points; the progress view
// (Gameboard and other clients) shows every open set, hidden questions included, raw weights.

export interface QuestionView {
  text: string;
  hint: string;
  /** Only once the question is graded correct: the answer the player submitted, never the key. */
  answer: string;
  example: string;
  weight: number;
  penalty: number;
  isCorrect: boolean;
  isGraded: boolean;
}

export interface ChallengeView {
  text: string;
  maxPoints: number;
  maxAttempts: number;
  /** Submissions over all sections. */
  attempts: number;
  /** In points. */
  score: number;
  sectionCount: number;
  sectionIndex: number;
  /** In points. */
  sectionScore: number;
  sectionText: string;
  lastScoreTime: string;
  questions: QuestionView[];
}

export interface SectionView {
  name: string | null;
  preReqPrevSection: number;
  preReqTotal: number;
  /** Raw weight (0..1), not points. */
  score: number;
  text: string;
  questions: QuestionView[];
}

export interface VariantView {
  text: string;
  /** Only the sections open to the player. */
  sections: SectionView[];
  totalSectionCount: number;
}

export interface ChallengeProgressView {
  id: string;
  attempts: number;
  /** Unix milliseconds (the one date of the wire that is not ISO text). */
  expiresAtTimestamp: number;
  maxAttempts: number;
  maxPoints: number;
  /** Null when nothing was scored yet. */
  lastScoreTime: string | null;
  nextSectionPreReqThisSection: number | null;
  nextSectionPreReqTotal: number | null;
  score: number;
  variant: VariantView;
  text: string;
}

const isUnset = (date: string | null | undefined) => !date || date.startsWith('0001-');

/**
 * The answer a player gave to a question they got right: the first stored submission of its set
 * that the question's grader accepts. Grading skips a question once it is correct, so that is the
 * submission that made it correct, in a grade as in a regrade (which replays the submissions in
 * order). Empty for a question not yet correct. The stored `answer` is the key, which for
 * matchAny and matchAll lists every alternative: a player is shown what they found, never it.
 */
function foundAnswer(
  spec: Pick<ChallengeSpec, 'submissions'>,
  sectionIndex: number,
  questionIndex: number,
  q: QuestionSpec,
): string {
  if (!(q.isCorrect && q.isGraded)) return '';
  for (const submission of spec.submissions) {
    if (submission.sectionIndex !== sectionIndex) continue;
    const answer = submission.questions[questionIndex]?.answer ?? '';
    if (answer.trim() !== '' && isMatch(q.grader, q.answer, answer)) return answer;
  }
  return '';
}

/** A question as a player may see it: the answer key stays secret, even once it is found. */
function questionView(
  q: QuestionSpec,
  scale: (weight: number) => number,
  found: string,
): QuestionView {
  return {
    text: q.text,
    hint: q.hint,
    answer: found,
    example: q.example,
    weight: scale(q.weight),
    penalty: scale(q.penalty),
    isCorrect: q.isCorrect,
    isGraded: q.isGraded,
  };
}

/** The visible questions of a set as a player sees them. */
function sectionQuestions(
  spec: ChallengeSpec,
  sectionIndex: number,
  scale: (weight: number) => number,
  options: { hidden: boolean },
): QuestionView[] {
  const section = spec.challenge?.sections[sectionIndex];
  return (section?.questions ?? []).flatMap((q, j) =>
    q.hidden && !options.hidden
      ? []
      : [questionView(q, scale, foundAnswer(spec, sectionIndex, j, q))],
  );
}

const isComplete = (section: SectionSpec) => section.questions.every((q) => q.isCorrect);

/**
 * The question set a player works on: the lowest one that is open and not yet fully answered.
 * When every open set is complete, the last open one (so its results stay on screen); 0 when none
 * is open.
 */
export function currentSectionIndex(variant: Pick<VariantSpec, 'sections'>): number {
  const open = variant.sections.flatMap((_, i) => (isSectionEligible(variant, i) ? [i] : []));
  const incomplete = open.find((i) => !isComplete(variant.sections[i]!));
  return incomplete ?? open[open.length - 1] ?? 0;
}

/** The ChallengeView of GameState, or null when the gamespace's variant has no sections. */
export function challengeView(spec: ChallengeSpec): ChallengeView | null {
  const variant = spec.challenge;
  if (!variant || variant.sections.length === 0) return null;
  const index = currentSectionIndex(variant);
  const section = variant.sections[index]!;
  const inPoints = (weight: number) => points(weight, spec.maxPoints);
  return {
    text: `${spec.text}\n\n${variant.text}`,
    maxPoints: spec.maxPoints,
    maxAttempts: spec.maxAttempts,
    attempts: spec.submissions.length,
    score: inPoints(spec.score),
    sectionCount: variant.sections.length,
    sectionIndex: index,
    sectionScore: inPoints(section.score),
    sectionText: section.text,
    lastScoreTime: spec.lastScoreTime,
    questions: sectionQuestions(spec, index, inPoints, { hidden: false }),
  };
}

/**
 * GET api/gamespace/{id}/challenge/progress. Hidden questions are included and weights stay raw
 * fractions: the reference's quirk, kept because Gameboard reads this view as it is. The next
 * section's prerequisites are those of the first set still locked, null when all are open.
 * `_now` is accepted so that callers pass the request's clock as to every other view; the
 * reference's progress view does not depend on it.
 */
export function challengeProgress(
  spec: ChallengeSpec,
  gamespace: Pick<GamespaceTable, 'id' | 'expirationTime'>,
  _now?: number,
): ChallengeProgressView {
  const variant = spec.challenge;
  const sections = variant?.sections ?? [];
  const locked = sections.findIndex((_, i) => !isSectionEligible({ sections }, i));
  const next = locked >= 0 ? sections[locked]! : null;
  return {
    id: gamespace.id,
    attempts: spec.submissions.length,
    expiresAtTimestamp: gamespace.expirationTime,
    maxAttempts: spec.maxAttempts,
    maxPoints: spec.maxPoints,
    lastScoreTime: isUnset(spec.lastScoreTime) ? null : spec.lastScoreTime,
    nextSectionPreReqThisSection: next ? next.preReqPrevSection : null,
    nextSectionPreReqTotal: next ? next.preReqTotal : null,
    score: points(spec.score, spec.maxPoints),
    variant: {
      text: variant?.text ?? '',
      sections: sections.flatMap((s, i) =>
        isSectionEligible({ sections }, i)
          ? [
              {
                name: s.name,
                preReqPrevSection: s.preReqPrevSection,
                preReqTotal: s.preReqTotal,
                score: s.score,
                text: s.text,
                questions: sectionQuestions(spec, i, (w) => w, { hidden: true }),
              },
            ]
          : [],
      ),
      totalSectionCount: sections.length,
    },
    text: spec.text,
  };
}
