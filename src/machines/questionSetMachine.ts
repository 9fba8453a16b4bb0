import {
  assign,
  enqueueActions,
  fromPromise,
  setup,
  type ActorRef,
  type ActorRefFrom,
  type Snapshot,
  type SnapshotFrom,
} from 'xstate';
import type { ChallengeProgress, GameState, ProgressSection, SectionSubmission } from '../api/play';
import { errorMessage } from '../domain/text';
import { isSectionEligible } from '../domain/graders';

export type { ChallengeProgress, ProgressSection };

/** A grade asked for before the progress loaded (spec §5, §8). */
export const PROGRESS_UNRESOLVED = 'Challenge progress unresolved';

/** What the quiz tells the play page: a grade answered with the updated gamespace. */
export type QuestionSetReport = { type: 'quiz.graded'; state: GameState };

export type QuestionSetEvent =
  | { type: 'quiz.answerChanged'; section: number; question: number; answer: string }
  | { type: 'quiz.submitRequested'; section: number }
  | { type: 'quiz.submitConfirmed' }
  | { type: 'quiz.submitCancelled' }
  /** The play page's window changed: answers are taken only during a game not over. */
  | { type: 'quiz.playabilityChanged'; playable: boolean }
  /** The gamespace changed (a GameEvent): the progress is loaded again. */
  | { type: 'quiz.refreshRequested' };

export interface QuestionSetInput {
  gamespaceId: string;
  playable: boolean;
  reportTo?: ActorRef<Snapshot<unknown>, QuestionSetReport>;
}

export interface QuestionSetContext {
  gamespaceId: string;
  playable: boolean;
  /** Null until loaded, and after a failed load. */
  progress: ChallengeProgress | null;
  /** The answers typed so far, by section then question. */
  answers: Record<number, string[]>;
  /** The set awaiting confirmation or being graded. */
  submitting: number | null;
  /** The last grade error of each set (the server's message). */
  errors: Record<number, string>;
  reportTo: QuestionSetInput['reportTo'] | null;
}

const sectionsOf = (progress: ChallengeProgress | null): ProgressSection[] =>
  progress?.variant?.sections ?? [];

/** A set is completed when every one of its questions is correct (spec §4). */
export const isSectionCompleted = (section: ProgressSection | undefined): boolean => {
  const questions = section?.questions ?? [];
  return questions.length > 0 && questions.every((q) => q.isCorrect === true);
};

/**
 * A set opens by the grading rule the server applies (wire reference §4.4): the weight scored in
 * all sets and in the previous set reach its prerequisites. The progress carries raw fractions.
 */
export function isSectionUnlocked(progress: ChallengeProgress | null, index: number): boolean {
  const sections = sectionsOf(progress).map((s) => ({
    preReqTotal: s.preReqTotal ?? 0,
    preReqPrevSection: s.preReqPrevSection ?? 0,
    questions: (s.questions ?? []).map((q) => ({
      weight: q.weight ?? 0,
      isCorrect: q.isCorrect === true,
      isGraded: q.isGraded === true,
    })),
  }));
  return index === 0 ? sections.length > 0 : isSectionEligible({ sections }, index);
}

/** What is submitted for a set: the correct answers as graded, the others as typed. */
export function submissionFor(context: QuestionSetContext, index: number): SectionSubmission {
  const questions = sectionsOf(context.progress)[index]?.questions ?? [];
  const typed = context.answers[index] ?? [];
  return {
    id: context.gamespaceId,
    sectionIndex: index,
    questions: questions.map((q, i) => ({
      answer: q.isCorrect === true ? (q.answer ?? '') : (typed[i] ?? ''),
    })),
  };
}

/** Submit is offered for an unlocked, uncompleted set while the game is playable (spec §4). */
export const canSubmitSection = (context: QuestionSetContext, index: number): boolean =>
  context.playable &&
  isSectionUnlocked(context.progress, index) &&
  !isSectionCompleted(sectionsOf(context.progress)[index]);

/** A failed grade shows what the server said, as it said it (spec §8). */
const serverBody = (error: unknown): string => {
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' && message !== '' ? message : errorMessage(error);
};

const notProvided = (name: string): Error =>
  new Error(`questionSetMachine: '${name}' is provided by the app (src/app)`);

/**
 * The quiz of a gamespace (spec §4 "Question sets"): loads the progress, keeps the typed answers,
 * and grades one set at a time after confirmation, then loads the progress again (a correct set
 * may unlock the next). A grade failure shows the server's message on its set.
 */
export const questionSetMachine = setup({
  types: {
    input: {} as QuestionSetInput,
    context: {} as QuestionSetContext,
    events: {} as QuestionSetEvent,
    // 'busy': the progress is loading or a set is being graded. 'confirming': Submit asks first.
    tags: {} as 'busy' | 'confirming',
  },
  actors: {
    /** GET gamespace/{id}/challenge/progress. */
    loadProgress: fromPromise<ChallengeProgress, { gamespaceId: string }>(() => {
      throw notProvided('loadProgress');
    }),
    /** POST gamespace/grade. */
    gradeSection: fromPromise<GameState, SectionSubmission>(() => {
      throw notProvided('gradeSection');
    }),
  },
  guards: {
    isProgressMissing: ({ context }) => context.progress === null,
    canSubmit: ({ context, event }) =>
      event.type === 'quiz.submitRequested' && canSubmitSection(context, event.section),
    isAnswerEditable: ({ context, event }) =>
      event.type === 'quiz.answerChanged' &&
      sectionsOf(context.progress)[event.section]?.questions?.[event.question]?.isCorrect !== true,
  },
  actions: {
    setPlayable: assign({
      playable: ({ context, event }) =>
        event.type === 'quiz.playabilityChanged' ? event.playable : context.playable,
    }),
    setAnswer: assign({
      answers: ({ context, event }) => {
        if (event.type !== 'quiz.answerChanged') return context.answers;
        const answers = [...(context.answers[event.section] ?? [])];
        answers[event.question] = event.answer;
        return { ...context.answers, [event.section]: answers };
      },
    }),
    rejectUnresolved: assign({
      errors: ({ context, event }) =>
        event.type === 'quiz.submitRequested'
          ? { ...context.errors, [event.section]: PROGRESS_UNRESOLVED }
          : context.errors,
    }),
    chooseSection: assign({
      submitting: ({ event }) => (event.type === 'quiz.submitRequested' ? event.section : null),
    }),
  },
}).createMachine({
  id: 'questionSet',
  description:
    "A gamespace's question sets: loads the progress; Submit (confirmed) grades one unlocked, uncompleted set while the game is playable, then reloads the progress; a grade without progress fails with 'Challenge progress unresolved', a failed grade shows the server's message.",
  context: ({ input }) => ({
    gamespaceId: input.gamespaceId,
    playable: input.playable,
    progress: null,
    answers: {},
    submitting: null,
    errors: {},
    reportTo: input.reportTo ?? null,
  }),
  on: {
    'quiz.playabilityChanged': { actions: 'setPlayable' },
    'quiz.answerChanged': { guard: 'isAnswerEditable', actions: 'setAnswer' },
  },
  initial: 'loading',
  states: {
    loading: {
      tags: ['busy'],
      invoke: {
        id: 'loadProgress',
        src: 'loadProgress',
        input: ({ context }) => ({ gamespaceId: context.gamespaceId }),
        onDone: { target: 'ready', actions: assign({ progress: ({ event }) => event.output }) },
        // Without progress nothing can be graded; a submit then says why.
        onError: { target: 'ready', actions: assign({ progress: null }) },
      },
    },
    ready: {
      on: {
        'quiz.refreshRequested': 'loading',
        'quiz.submitRequested': [
          { guard: 'isProgressMissing', actions: 'rejectUnresolved' },
          { guard: 'canSubmit', target: 'confirming', actions: 'chooseSection' },
        ],
      },
    },
    confirming: {
      tags: ['confirming'],
      on: {
        'quiz.submitConfirmed': 'grading',
        'quiz.submitCancelled': { target: 'ready', actions: assign({ submitting: null }) },
      },
    },
    grading: {
      tags: ['busy'],
      entry: assign({
        errors: ({ context }) => {
          const { [context.submitting ?? -1]: _cleared, ...rest } = context.errors;
          return rest;
        },
      }),
      invoke: {
        id: 'gradeSection',
        src: 'gradeSection',
        input: ({ context }) => submissionFor(context, context.submitting ?? 0),
        onDone: {
          target: 'loading',
          actions: [
            assign({ submitting: null }),
            enqueueActions(({ context, event, enqueue }) => {
              if (context.reportTo) {
                enqueue.sendTo(context.reportTo, { type: 'quiz.graded', state: event.output });
              }
            }),
          ],
        },
        onError: {
          target: 'ready',
          actions: assign({
            errors: ({ context, event }) => ({
              ...context.errors,
              [context.submitting ?? 0]: serverBody(event.error),
            }),
            submitting: null,
          }),
        },
      },
    },
  },
});

export type QuestionSetActorRef = ActorRefFrom<typeof questionSetMachine>;
export type QuestionSetSnapshot = SnapshotFrom<typeof questionSetMachine>;
