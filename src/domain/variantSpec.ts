/**
 * A challenge variant's question sets and questions (wire reference §2.3): the part of the
 * challenge spec that grading reads (graders.ts) as well as the spec's reading (challenge.ts).
 */
export const GRADERS = ['match', 'matchAny', 'matchAll', 'matchAlpha'] as const;
export type Grader = (typeof GRADERS)[number];

export interface QuestionSpec {
  text: string;
  hint: string;
  answer: string;
  example: string;
  /** A fraction of 1, or a percentage when the weights add up to more than 1 (§4.4). */
  weight: number;
  penalty: number;
  grader: Grader;
  hidden: boolean;
  isCorrect: boolean;
  isGraded: boolean;
  /**
   * Ours: answers no real gamespace is given (decoys planted in the lab): a submission equal to
   * one is told to observers as an alert (server/core/answerAlerts.ts); players never see them.
   * Absent when the question has none, so a spec without them reads as the reference writes it.
   */
  canaries?: string[];
}

/** A question set. */
export interface SectionSpec {
  /** Null when the author gave none (the server turns blank names into null). */
  name: string | null;
  /**
   * The weight that must be scored in the previous set before this one opens (0..1 once read;
   * an author's whole number is in the units of whole-number weights: `normalizePrerequisites`).
   */
  preReqPrevSection: number;
  /** The weight that must be scored in total before this one opens (like preReqPrevSection). */
  preReqTotal: number;
  score: number;
  text: string;
  questions: QuestionSpec[];
}

export interface IsoSpec {
  file: string;
  /** Space-separated template names the ISO is attached to. */
  targets: string;
  /** Players may download the ISO (spec §3). */
  downloadable: boolean;
  manifest: string[];
}

export interface VariantSpec {
  /** Markdown appended to the challenge text. */
  text: string;
  sections: SectionSpec[];
  iso: IsoSpec | null;
}
