/**
 * Grading (wire reference §4.4): how a submitted answer is compared with the expected one, how
 * question weights and prerequisites become fractions of 1, when a question set is open, and how
 * weights become points. Pure, so that the server grades with the same rules the
 * editor explains to authors.
 */
import type { Grader, QuestionSpec, SectionSpec, VariantSpec } from './variantSpec';

/** The expected answer's alternatives: lowercase, spaces removed, split on `|`. */
const alternatives = (answer: string): string[] =>
  answer.toLowerCase().replace(/ /g, '').split('|');

/** What matchAll splits a submission on: space , ; : | and tab. */
const SUBMISSION_SEPARATORS = /[ ,;:|\t]/;

/** Only ASCII letters and digits (matchAlpha). */
const alphanumeric = (text: string): string => text.replace(/[^a-z0-9]/gi, '');

/** Whether `submitted` matches `answer` under the grader. */
export function isMatch(grader: Grader, answer: string, submitted: string): boolean {
  const a = alternatives(answer);
  const b = submitted.toLowerCase();
  const c = b.replace(/ /g, '');
  switch (grader) {
    case 'matchAny':
      return a.includes(c);
    case 'matchAll': {
      const tokens = new Set(b.split(SUBMISSION_SEPARATORS).filter(Boolean));
      return a.every((x) => tokens.has(x));
    }
    case 'matchAlpha':
      return alphanumeric(a[0] ?? '') === alphanumeric(c);
    default:
      return a[0] === c;
  }
}

export type GradedQuestion = Pick<QuestionSpec, 'isCorrect' | 'isGraded'>;

/**
 * One question graded against a submission. A blank submission, or a question already correct,
 * is left as it was; otherwise it is graded and marked so.
 */
export function grade(
  question: Pick<QuestionSpec, 'answer' | 'grader' | 'isCorrect' | 'isGraded'>,
  submitted: string,
): GradedQuestion {
  if (question.isCorrect || submitted.trim() === '') {
    return { isCorrect: question.isCorrect, isGraded: question.isGraded };
  }
  return { isCorrect: isMatch(question.grader, question.answer, submitted), isGraded: true };
}

/**
 * What whole-number weights and prerequisites are points out of: the sum of the variant's question
 * weights, and at least 100, so that with fractional weights a whole number is a percentage.
 */
function pointsDivisor(variant: Pick<VariantSpec, 'sections'>): number {
  const sum = variant.sections.reduce(
    (total, s) => s.questions.reduce((t, q) => t + q.weight, total),
    0,
  );
  return Math.max(sum, 100);
}

/**
 * The variant's prerequisites as fractions of 1, the units in which eligibility compares them
 * with the weight scored. One above 1 is in the units of whole-number weights and is divided like
 * them (30 of weights adding up to 100 is 0.3); one up to 1 is a fraction already, so applying
 * this again changes nothing. A prerequisite beyond all the weights is capped at all of them,
 * which keeps it a fraction. The first set is always open: its prerequisites are 0 (§4.4).
 */
export function normalizePrerequisites<V extends Pick<VariantSpec, 'sections'>>(variant: V): V {
  const divisor = pointsDivisor(variant);
  const fraction = (value: number) => (value > 1 ? Math.min(value / divisor, 1) : value);
  return {
    ...variant,
    sections: variant.sections.map((s, i) => ({
      ...s,
      preReqTotal: i === 0 ? 0 : fraction(s.preReqTotal),
      preReqPrevSection: i === 0 ? 0 : fraction(s.preReqPrevSection),
    })),
  };
}

/**
 * The variant's question weights as fractions of 1. When they add up to more than 1 they are
 * divided by the larger of their sum and 100, so whole numbers count as percentages. Questions of
 * weight 0 then share what is left of 1 equally; the last of them takes the exact remainder, so
 * that the weights add up to 1 despite rounding.
 */
export function setQuestionWeights<V extends Pick<VariantSpec, 'sections'>>(variant: V): V {
  const all = variant.sections.flatMap((s) => s.questions);
  const sum = all.reduce((total, q) => total + q.weight, 0);
  const divisor = sum > 1 ? pointsDivisor(variant) : 1;
  const scaled = all.map((q) => q.weight / divisor);
  const zeros = scaled.flatMap((w, i) => (w === 0 ? [i] : []));
  if (zeros.length > 0) {
    const share = (1 - scaled.reduce((total, w) => total + w, 0)) / zeros.length;
    for (const i of zeros) scaled[i] = share;
    const last = zeros[zeros.length - 1]!;
    scaled[last] = 1 - scaled.reduce((total, w, i) => (i === last ? total : total + w), 0);
  }
  let next = 0;
  return {
    ...variant,
    sections: variant.sections.map((s) => ({
      ...s,
      questions: s.questions.map((q) => ({ ...q, weight: scaled[next++]! })),
    })),
  };
}

/** What eligibility reads of a question set: its prerequisites and its questions' grading. */
export interface GradedSection {
  preReqTotal: number;
  preReqPrevSection: number;
  questions: ReadonlyArray<Pick<QuestionSpec, 'weight' | 'isCorrect' | 'isGraded'>>;
}

/** Σweight of the section's correct, graded questions (penalties ignored). */
export const weightScored = (section: Pick<GradedSection, 'questions'>): number =>
  section.questions.reduce((total, q) => (q.isCorrect && q.isGraded ? total + q.weight : total), 0);

/** Σ(weight − penalty) of the section's correct questions: its score. */
export const sectionScore = (section: Pick<SectionSpec, 'questions'>): number =>
  section.questions.reduce((total, q) => (q.isCorrect ? total + q.weight - q.penalty : total), 0);

/**
 * Whether question set `index` is open: the total weight scored reaches its `preReqTotal` and the
 * weight scored in the previous set reaches its `preReqPrevSection` (0 means no requirement).
 * Both are fractions (`normalizePrerequisites`, applied whenever a spec is read).
 */
export function isSectionEligible(
  variant: { sections: readonly GradedSection[] },
  index: number,
): boolean {
  const section = variant.sections[index];
  if (!section) return false;
  const total = variant.sections.reduce((sum, s) => sum + weightScored(s), 0);
  const previous = index > 0 ? weightScored(variant.sections[index - 1]!) : 0;
  return (
    (section.preReqTotal === 0 || total >= section.preReqTotal) &&
    (section.preReqPrevSection === 0 || previous >= section.preReqPrevSection)
  );
}

/** A weight (0..1) as points out of `maxPoints`, rounded half away from zero. */
export function points(weight: number, maxPoints: number): number {
  const exact = weight * maxPoints;
  return Math.sign(exact) * Math.round(Math.abs(exact)) || 0;
}
