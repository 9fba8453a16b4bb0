import type {
  ChallengeSpec,
  QuestionSpec,
  SectionSpec,
  VariantSpec,
} from '../../src/domain/challenge';
import { isSectionEligible, points } from '../../src/domain/graders';
import type { GamespaceTable } from '../store/schema';

// What a player sees of a gamespace's challenge (wire reference §2.3). Two views of the same
// stored spec with deliberately different units: the ChallengeView inside GameState (the SPA's
// quiz) shows one question set, without hidden questions, weights in points; the progress view
// (Gameboard and other clients) shows every open set, hidden questions included, raw weights.

export interface QuestionView {
  text: string;
  hint: string;
  /** Only once the question is graded correct; grading replaces it with the submitted answer. */
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

/** A question as a player may see it: the answer stays secret until it is found. */
function questionView(q: QuestionSpec, scale: (weight: number) => number): QuestionView {
  return {
    text: q.text,
    hint: q.hint,
    answer: q.isCorrect && q.isGraded ? q.answer : '',
    example: q.example,
    weight: scale(q.weight),
    penalty: scale(q.penalty),
    isCorrect: q.isCorrect,
    isGraded: q.isGraded,
  };
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
    questions: section.questions.filter((q) => !q.hidden).map((q) => questionView(q, inPoints)),
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
      sections: sections
        .filter((_, i) => isSectionEligible({ sections }, i))
        .map((s) => ({
          name: s.name,
          preReqPrevSection: s.preReqPrevSection,
          preReqTotal: s.preReqTotal,
          score: s.score,
          text: s.text,
          questions: s.questions.map((q) => questionView(q, (w) => w)),
        })),
      totalSectionCount: sections.length,
    },
    text: spec.text,
  };
}
