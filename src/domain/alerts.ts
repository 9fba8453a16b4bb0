/**
 * Answer-sharing alerts (ours): a submission that is not the gamespace's own answer but the one
 * another gamespace of the workspace was generated for the same question (its transforms made
 * each gamespace's answer differ), or one of the question's canary answers, which no gamespace is
 * given. Observers are told; the grading is not changed: an alert is no verdict. The matching
 * uses the question's own grader (graders.ts), so an alert fires exactly when that answer would
 * have been graded right in the other gamespace.
 */
import { isMatch } from './graders';
import type { Grader } from './variantSpec';

export type AlertKind = 'shared' | 'canary';

/** Another gamespace's generated answer to the same question. */
export interface GeneratedAnswer {
  readonly gamespaceId: string;
  readonly answer: string;
}

/**
 * The gamespaces whose generated answer `submitted` is, when it is not the submitter's own:
 * `own` is the submitter's answer to the question. None for a blank submission, nor for one the
 * submitter's own answer accepts (a question without transforms gives every gamespace the same
 * answer, which is then never an alert).
 */
export function sharedAnswerOwners(
  grader: Grader,
  own: string,
  submitted: string,
  others: readonly GeneratedAnswer[],
): string[] {
  if (submitted.trim() === '' || isMatch(grader, own, submitted)) return [];
  return others
    .filter((o) => o.answer.trim() !== '' && isMatch(grader, o.answer, submitted))
    .map((o) => o.gamespaceId);
}

/** Whether `submitted` is one of the question's canaries, by the question's grader. */
export function isCanaryAnswer(
  grader: Grader,
  own: string,
  canaries: readonly string[] | undefined,
  submitted: string,
): boolean {
  if (submitted.trim() === '' || isMatch(grader, own, submitted)) return false;
  return (canaries ?? []).some((c) => c.trim() !== '' && isMatch(grader, c, submitted));
}

/** What an alert says of itself (the fields of GET /api/alerts). */
export interface AlertFacts {
  readonly kind: AlertKind;
  /** The submitting gamespace's players (or its team), as one text. */
  readonly submitterNames: string;
  /** The players of the gamespace whose answer it was; '' for a canary. */
  readonly ownerNames: string;
  /** 0-based. */
  readonly sectionIndex: number;
  readonly sectionName: string | null;
  /** 0-based. */
  readonly questionIndex: number;
}

/** `Question 2 of Set 1 (Recon)`: 1-based, with the set's name when it has one. */
export function questionLabel(
  facts: Pick<AlertFacts, 'sectionIndex' | 'sectionName' | 'questionIndex'>,
): string {
  const set = `Set ${facts.sectionIndex + 1}${facts.sectionName ? ` (${facts.sectionName})` : ''}`;
  return `Question ${facts.questionIndex + 1} of ${set}`;
}

/**
 * The alert in one plain sentence: `Team Blue submitted the answer generated for Team Red —
 * Question 2 of Set 1`, or `… submitted a canary answer — …`.
 */
export function alertSentence(facts: AlertFacts): string {
  const who = facts.submitterNames || 'A player';
  const what =
    facts.kind === 'canary'
      ? 'submitted a canary answer'
      : `submitted the answer generated for ${facts.ownerNames || 'another gamespace'}`;
  return `${who} ${what} — ${questionLabel(facts)}`;
}
