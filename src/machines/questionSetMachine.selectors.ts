import {
  canSubmitSection,
  isSectionCompleted,
  isSectionUnlocked,
  type ChallengeProgress,
  type QuestionSetSnapshot,
} from './questionSetMachine';

/** The loaded progress (a stable reference until it is loaded again). */
export const selectProgress = (snapshot: QuestionSetSnapshot): ChallengeProgress | null =>
  snapshot.context.progress;

/** How many sets are shown: the unlocked ones, in order. */
export const selectSectionCount = (snapshot: QuestionSetSnapshot): number => {
  const sections = snapshot.context.progress?.variant?.sections ?? [];
  let count = 0;
  while (count < sections.length && isSectionUnlocked(snapshot.context.progress, count)) count++;
  return count;
};

/** The progress is loaded and its variant has no question set at all (a lab without a quiz). */
export const selectHasNoQuestions = (snapshot: QuestionSetSnapshot): boolean => {
  const variant = snapshot.context.progress?.variant;
  if (!snapshot.context.progress) return false;
  return Math.max(variant?.totalSectionCount ?? 0, variant?.sections?.length ?? 0) === 0;
};

/** Sets the variant has beyond those unlocked: shown as locked, without their questions. */
export const selectLockedSectionCount = (snapshot: QuestionSetSnapshot): number => {
  const total = snapshot.context.progress?.variant?.totalSectionCount ?? 0;
  return Math.max(0, total - selectSectionCount(snapshot));
};

/**
 * What the page says of the sets still locked: they unlock as the player scores while the game
 * is playable; once it is over they stayed locked; at full score nothing more is to be scored,
 * so nothing is said.
 */
export const selectLockedSectionNote = (snapshot: QuestionSetSnapshot): string | null => {
  const locked = selectLockedSectionCount(snapshot);
  const { progress, playable } = snapshot.context;
  const maxPoints = progress?.maxPoints ?? 0;
  if (locked === 0 || (maxPoints > 0 && (progress?.score ?? 0) >= maxPoints)) return null;
  const sets = locked === 1 ? '1 more question set' : `${locked} more question sets`;
  if (!playable) return `${sets} stayed locked.`;
  return `${sets} ${locked === 1 ? 'unlocks' : 'unlock'} as you score.`;
};

export const selectIsSectionCompleted =
  (index: number) =>
  (snapshot: QuestionSetSnapshot): boolean =>
    isSectionCompleted(snapshot.context.progress?.variant?.sections?.[index]);

/** Submit shows for a set not completed while the game is playable (spec §4). */
export const selectShowSubmit =
  (index: number) =>
  (snapshot: QuestionSetSnapshot): boolean =>
    canSubmitSection(snapshot.context, index);

export const selectCanSubmit =
  (index: number) =>
  (snapshot: QuestionSetSnapshot): boolean =>
    snapshot.can({ type: 'quiz.submitRequested', section: index });

/** The answer field as typed; a correct answer shows as graded and is read-only. */
export const selectAnswer =
  (section: number, question: number) =>
  (snapshot: QuestionSetSnapshot): string => {
    const graded = snapshot.context.progress?.variant?.sections?.[section]?.questions?.[question];
    if (graded?.isCorrect === true) return graded.answer ?? '';
    return snapshot.context.answers[section]?.[question] ?? '';
  };

/**
 * Read-only once correct (spec §4), and while its set cannot be submitted (the game is not
 * playable): typing there would go nowhere.
 */
export const selectIsAnswerReadOnly =
  (section: number, question: number) =>
  (snapshot: QuestionSetSnapshot): boolean =>
    snapshot.context.progress?.variant?.sections?.[section]?.questions?.[question]?.isCorrect ===
      true || !canSubmitSection(snapshot.context, section);

export const selectSectionError =
  (index: number) =>
  (snapshot: QuestionSetSnapshot): string | null =>
    snapshot.context.errors[index] ?? null;

/** The set whose submission awaits confirmation, if any. */
export const selectConfirmingSection = (snapshot: QuestionSetSnapshot): number | null =>
  snapshot.hasTag('confirming') ? snapshot.context.submitting : null;

export const selectIsGrading = (snapshot: QuestionSetSnapshot): boolean =>
  snapshot.matches('grading');
