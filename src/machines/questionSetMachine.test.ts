import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromPromise } from 'xstate';
import type { ChallengeProgress, GameState, SectionSubmission } from '../api/play';
import {
  isSectionUnlocked,
  PROGRESS_UNRESOLVED,
  questionSetMachine,
  type QuestionSetReport,
} from './questionSetMachine';
import {
  selectAnswer,
  selectCanSubmit,
  selectConfirmingSection,
  selectIsAnswerReadOnly,
  selectIsSectionCompleted,
  selectLockedSectionCount,
  selectLockedSectionNote,
  selectSectionCount,
  selectSectionError,
  selectShowSubmit,
} from './questionSetMachine.selectors';
import { deferred, flush, type Deferred } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';

const question = (isCorrect = false, answer = '') => ({
  text: 'Q',
  weight: 0.5,
  answer,
  isCorrect,
  isGraded: isCorrect,
});

/** One set of two questions; the second set needs the first fully scored. */
const firstSet = (correct: [boolean, boolean]): ChallengeProgress => ({
  id: 'gs1',
  score: correct.every(Boolean) ? 50 : 0,
  maxPoints: 100,
  variant: {
    totalSectionCount: 2,
    sections: [
      {
        name: 'One',
        score: correct.filter(Boolean).length * 0.5,
        questions: [question(correct[0], correct[0] ? 'a1' : ''), question(correct[1])],
      },
    ],
  },
});

const bothSets: ChallengeProgress = {
  ...firstSet([true, true]),
  variant: {
    totalSectionCount: 2,
    sections: [
      ...(firstSet([true, true]).variant?.sections ?? []),
      { name: 'Two', preReqPrevSection: 1, questions: [question()] },
    ],
  },
};

function startQuiz(options: {
  progress: (ChallengeProgress | Error)[];
  grade?: (submission: SectionSubmission) => GameState;
  playable?: boolean;
}) {
  const graded: SectionSubmission[] = [];
  const reports: QuestionSetReport[] = [];
  const parent = createActor(
    createMachine({
      on: { 'quiz.graded': { actions: ({ event }) => reports.push(event as QuestionSetReport) } },
    }),
  ).start();
  const loads = [...options.progress];
  const actor = createActor(
    questionSetMachine.provide({
      actors: {
        loadProgress: fromPromise(async () => {
          const next = loads.length > 1 ? loads.shift() : loads[0];
          if (next instanceof Error || next === undefined) throw next ?? new Error('none');
          return next;
        }),
        gradeSection: fromPromise<GameState, SectionSubmission>(async ({ input }) => {
          graded.push(input);
          if (!options.grade) throw { status: 400, message: 'Grading failed: attempts exhausted' };
          return options.grade(input);
        }),
      },
    }),
    { input: { gamespaceId: 'gs1', playable: options.playable ?? true, reportTo: parent } },
  ).start();
  return { actor, graded, reports };
}

describe('questionSetMachine', () => {
  it('grades a set after confirmation, then reloads the progress and unlocks the next set', async () => {
    const { actor, graded, reports } = startQuiz({
      progress: [firstSet([true, false]), bothSets],
      grade: () => ({ id: 'gs1', challenge: { score: 50 } }),
    });
    await flush();
    expect(selectSectionCount(actor.getSnapshot())).toBe(1);
    expect(selectLockedSectionCount(actor.getSnapshot())).toBe(1);
    actor.send({ type: 'quiz.answerChanged', section: 0, question: 1, answer: 'a2' });
    actor.send({ type: 'quiz.submitRequested', section: 0 });
    expect(selectConfirmingSection(actor.getSnapshot())).toBe(0);
    expect(graded).toEqual([]);
    actor.send({ type: 'quiz.submitConfirmed' });
    await flush();
    await flush();
    // The correct answer goes as graded, the other as typed.
    expect(graded).toEqual([
      { id: 'gs1', sectionIndex: 0, questions: [{ answer: 'a1' }, { answer: 'a2' }] },
    ]);
    expect(reports).toEqual([
      { type: 'quiz.graded', state: { id: 'gs1', challenge: { score: 50 } } },
    ]);
    expect(selectSectionCount(actor.getSnapshot())).toBe(2);
    expect(selectLockedSectionCount(actor.getSnapshot())).toBe(0);
    expect(selectIsSectionCompleted(0)(actor.getSnapshot())).toBe(true);
    expect(selectShowSubmit(0)(actor.getSnapshot())).toBe(false);
    expect(selectShowSubmit(1)(actor.getSnapshot())).toBe(true);
  });

  it('does not grade when the submission is cancelled', async () => {
    const { actor, graded } = startQuiz({ progress: [firstSet([false, false])] });
    await flush();
    actor.send({ type: 'quiz.submitRequested', section: 0 });
    actor.send({ type: 'quiz.submitCancelled' });
    expect(actor.getSnapshot().value).toBe('ready');
    expect(graded).toEqual([]);
  });

  it('keeps a correct answer read-only', async () => {
    const { actor } = startQuiz({ progress: [firstSet([true, false])] });
    await flush();
    actor.send({ type: 'quiz.answerChanged', section: 0, question: 0, answer: 'changed' });
    actor.send({ type: 'quiz.answerChanged', section: 0, question: 1, answer: 'typed' });
    expect(selectIsAnswerReadOnly(0, 0)(actor.getSnapshot())).toBe(true);
    expect(selectAnswer(0, 0)(actor.getSnapshot())).toBe('a1');
    expect(selectIsAnswerReadOnly(0, 1)(actor.getSnapshot())).toBe(false);
    expect(selectAnswer(0, 1)(actor.getSnapshot())).toBe('typed');
  });

  it('hides Submit (and locks the answers) for a completed set and while the game is not playable', async () => {
    const done = startQuiz({ progress: [firstSet([true, true])] });
    await flush();
    expect(selectShowSubmit(0)(done.actor.getSnapshot())).toBe(false);
    expect(selectCanSubmit(0)(done.actor.getSnapshot())).toBe(false);

    const over = startQuiz({ progress: [firstSet([false, false])], playable: false });
    await flush();
    expect(selectShowSubmit(0)(over.actor.getSnapshot())).toBe(false);
    expect(selectIsAnswerReadOnly(0, 0)(over.actor.getSnapshot())).toBe(true);
    over.actor.send({ type: 'quiz.submitRequested', section: 0 });
    expect(over.actor.getSnapshot().value).toBe('ready');
    over.actor.send({ type: 'quiz.playabilityChanged', playable: true });
    expect(selectShowSubmit(0)(over.actor.getSnapshot())).toBe(true);
    expect(selectIsAnswerReadOnly(0, 0)(over.actor.getSnapshot())).toBe(false);
  });

  it('says that locked sets unlock as the player scores only while there is still something to score', async () => {
    const playing = startQuiz({ progress: [firstSet([false, false])] });
    await flush();
    expect(selectLockedSectionNote(playing.actor.getSnapshot())).toBe(
      '1 more question set unlocks as you score.',
    );
    // The game is over (time up, attempts used up, ended): the set stayed locked.
    playing.actor.send({ type: 'quiz.playabilityChanged', playable: false });
    expect(selectLockedSectionNote(playing.actor.getSnapshot())).toBe(
      '1 more question set stayed locked.',
    );

    // A full score with a set still locked (a set of no weight whose prerequisite stayed out of
    // reach): nothing more unlocks, and nothing is said.
    const full = { ...firstSet([true, true]), score: 100 };
    const done = startQuiz({ progress: [full], playable: false });
    await flush();
    expect(selectLockedSectionCount(done.actor.getSnapshot())).toBe(1);
    expect(selectLockedSectionNote(done.actor.getSnapshot())).toBeNull();
    done.actor.send({ type: 'quiz.playabilityChanged', playable: true });
    expect(selectLockedSectionNote(done.actor.getSnapshot())).toBeNull();
  });

  it("says 'Challenge progress unresolved' when grading without progress", async () => {
    const { actor, graded } = startQuiz({ progress: [new Error('offline')] });
    await flush();
    actor.send({ type: 'quiz.submitRequested', section: 0 });
    expect(selectSectionError(0)(actor.getSnapshot())).toBe(PROGRESS_UNRESOLVED);
    expect(graded).toEqual([]);
  });

  it("shows the server's message on the set when grading fails", async () => {
    const { actor } = startQuiz({ progress: [firstSet([false, false])] });
    await flush();
    actor.send({ type: 'quiz.submitRequested', section: 0 });
    actor.send({ type: 'quiz.submitConfirmed' });
    await flush();
    expect(actor.getSnapshot().value).toBe('ready');
    expect(selectSectionError(0)(actor.getSnapshot())).toBe('Grading failed: attempts exhausted');
  });

  it('loads the progress again when the gamespace changes', async () => {
    const { actor } = startQuiz({ progress: [firstSet([false, false]), firstSet([true, true])] });
    await flush();
    expect(selectIsSectionCompleted(0)(actor.getSnapshot())).toBe(false);
    actor.send({ type: 'quiz.refreshRequested' });
    await flush();
    expect(selectIsSectionCompleted(0)(actor.getSnapshot())).toBe(true);
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(questionSetMachine, {
        serializeState: (s) => JSON.stringify(s.value),
        inputs: [{ gamespaceId: 'gs1', playable: true }],
        payloads: [
          { type: 'xstate.done.actor.loadProgress', output: firstSet([false, false]) },
          { type: 'quiz.submitRequested', section: 0 },
        ],
      }),
    ).toEqual([]);
  });
});

/**
 * Model-based test: one open set (spec §4 "Question sets"), loaded or not, graded after
 * confirmation while the game is playable, with every call answered by the test. `unresolved`
 * has no progress; `locked` is the game not playable. The test checks what the view reads and
 * that loads, grades and reports happen exactly on the model's steps.
 */
describe('questionSetMachine against its model', () => {
  type ModelEvent =
    | { type: 'LOADED' }
    | { type: 'LOAD_FAILED' }
    | { type: 'ANSWERED' }
    | { type: 'SUBMIT' }
    | { type: 'CONFIRMED' }
    | { type: 'CANCELLED' }
    | { type: 'GRADED' }
    | { type: 'GRADE_FAILED' }
    | { type: 'REFRESH' }
    | { type: 'PLAYABILITY_TOGGLED' };

  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'questionSetModel',
    initial: 'loading',
    states: {
      loading: { on: { LOADED: 'ready', LOAD_FAILED: 'unresolved', ANSWERED: 'loading' } },
      unresolved: { on: { SUBMIT: 'unresolved', REFRESH: 'loading' } },
      ready: {
        on: {
          ANSWERED: 'ready',
          SUBMIT: 'confirming',
          REFRESH: 'loading',
          PLAYABILITY_TOGGLED: 'locked',
        },
      },
      locked: { on: { SUBMIT: 'locked', PLAYABILITY_TOGGLED: 'ready' } },
      confirming: { on: { CONFIRMED: 'grading', CANCELLED: 'ready', ANSWERED: 'confirming' } },
      grading: { on: { GRADED: 'loading', GRADE_FAILED: 'ready' } },
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, questionSetMachine, {
        states: {
          loading: 'loading',
          unresolved: 'ready',
          ready: 'ready',
          locked: 'ready',
          confirming: 'confirming',
          grading: 'grading',
        },
        events: {
          LOADED: 'xstate.done.actor.loadProgress',
          LOAD_FAILED: 'xstate.error.actor.loadProgress',
          ANSWERED: 'quiz.answerChanged',
          SUBMIT: 'quiz.submitRequested',
          CONFIRMED: 'quiz.submitConfirmed',
          CANCELLED: 'quiz.submitCancelled',
          GRADED: 'xstate.done.actor.gradeSection',
          GRADE_FAILED: 'xstate.error.actor.gradeSection',
          REFRESH: 'quiz.refreshRequested',
          PLAYABILITY_TOGGLED: 'quiz.playabilityChanged',
        },
      }),
    ).toEqual([]);
  });

  const paths = modelPaths(model);

  it('walks every transition of the model', () => {
    const { walked, transitions } = transitionCoverage(model, paths);
    expect(walked).toEqual(transitions);
  });

  for (const path of paths) {
    it(path.description, async () => {
      const loads: Deferred<ChallengeProgress>[] = [];
      const grades: Array<{ submission: SectionSubmission; result: Deferred<GameState> }> = [];
      const reports: QuestionSetReport[] = [];
      const parent = createActor(
        createMachine({
          on: {
            'quiz.graded': { actions: ({ event }) => reports.push(event as QuestionSetReport) },
          },
        }),
      ).start();
      const actor = createActor(
        questionSetMachine.provide({
          actors: {
            loadProgress: fromPromise<ChallengeProgress, { gamespaceId: string }>(() => {
              const load = deferred<ChallengeProgress>();
              loads.push(load);
              return load.promise;
            }),
            gradeSection: fromPromise<GameState, SectionSubmission>(({ input }) => {
              const result = deferred<GameState>();
              grades.push({ submission: input, result });
              return result.promise;
            }),
          },
        }),
        { input: { gamespaceId: 'gs1', playable: true, reportTo: parent } },
      ).start();
      let answer = '';
      let error: string | null = null;
      let loaded = false;
      let playable = true;
      const submitted: string[] = [];
      const reported: GameState[] = [];
      let loadsExpected = 0;
      let current = '';
      const expectQuiz = (state: string, value: string, busy: boolean) => () => {
        if (state === 'loading' && current !== 'loading') loadsExpected += 1;
        if (state === 'grading' && current !== 'grading') {
          submitted.push(answer);
          error = null;
        }
        current = state;
        const snapshot = actor.getSnapshot();
        expect(snapshot.value).toBe(value);
        expect(snapshot.hasTag('busy')).toBe(busy);
        expect(selectConfirmingSection(snapshot)).toBe(state === 'confirming' ? 0 : null);
        expect(selectShowSubmit(0)(snapshot)).toBe(loaded && playable);
        expect(selectSectionError(0)(snapshot)).toBe(error);
        expect(selectAnswer(0, 1)(snapshot)).toBe(answer);
        expect(loads).toHaveLength(loadsExpected);
        expect(grades.map((g) => g.submission.questions[1]?.answer)).toEqual(submitted);
        expect(reports.map((r) => r.state)).toEqual(reported);
      };
      await path.test({
        states: {
          loading: expectQuiz('loading', 'loading', true),
          unresolved: expectQuiz('unresolved', 'ready', false),
          ready: expectQuiz('ready', 'ready', false),
          locked: expectQuiz('locked', 'ready', false),
          confirming: expectQuiz('confirming', 'confirming', false),
          grading: expectQuiz('grading', 'grading', true),
        },
        events: {
          LOADED: async () => {
            loaded = true;
            loads.at(-1)?.resolve(firstSet([false, false]));
            await flush();
          },
          LOAD_FAILED: async () => {
            loaded = false;
            loads.at(-1)?.reject(new Error('offline'));
            await flush();
          },
          ANSWERED: () => {
            answer = `${answer}a`;
            actor.send({ type: 'quiz.answerChanged', section: 0, question: 1, answer });
          },
          SUBMIT: () => {
            if (!loaded) error = PROGRESS_UNRESOLVED;
            actor.send({ type: 'quiz.submitRequested', section: 0 });
          },
          CONFIRMED: () => actor.send({ type: 'quiz.submitConfirmed' }),
          CANCELLED: () => actor.send({ type: 'quiz.submitCancelled' }),
          GRADED: async () => {
            const state: GameState = { id: 'gs1', challenge: { score: grades.length } };
            reported.push(state);
            grades.at(-1)?.result.resolve(state);
            await flush();
          },
          GRADE_FAILED: async () => {
            error = 'Grading failed: attempts exhausted';
            grades.at(-1)?.result.reject({ status: 400, message: error });
            await flush();
          },
          REFRESH: () => actor.send({ type: 'quiz.refreshRequested' }),
          PLAYABILITY_TOGGLED: () => {
            playable = !playable;
            actor.send({ type: 'quiz.playabilityChanged', playable });
          },
        },
      });
    });
  }
});

describe('isSectionUnlocked', () => {
  // The progress of a challenge whose second set needs 0.3 of weight scored in the first; the
  // first set's only correct question weighs 0.3 with a penalty of 0.1.
  const progress = (isCorrect: boolean): ChallengeProgress => ({
    id: 'gs1',
    score: isCorrect ? 20 : 0,
    maxPoints: 100,
    variant: {
      totalSectionCount: 2,
      sections: [
        {
          score: isCorrect ? 0.2 : 0,
          questions: [
            { weight: 0.3, penalty: 0.1, isCorrect, isGraded: isCorrect },
            { weight: 0.2, isCorrect: false, isGraded: false },
          ],
        },
        { preReqPrevSection: 0.3, questions: [{ weight: 0.5 }] },
      ],
    },
  });

  it('opens a set by the weight scored, penalties ignored, as the server grades it', () => {
    expect(isSectionUnlocked(progress(true), 1)).toBe(true);
    expect(isSectionUnlocked(progress(false), 1)).toBe(false);
    expect(isSectionUnlocked(progress(false), 0)).toBe(true);
    expect(isSectionUnlocked(progress(false), 2)).toBe(false);
  });
});
