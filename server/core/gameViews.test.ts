import { describe, expect, it } from 'vitest';
import {
  emptyChallengeSpec,
  newQuestion,
  newSection,
  type ChallengeSpec,
  type QuestionSpec,
  type SectionSpec,
} from '../../src/domain/challenge';
import { challengeProgress, challengeView, currentSectionIndex } from './gameViews';

const question = (overrides: Partial<QuestionSpec>): QuestionSpec => ({
  ...newQuestion(),
  ...overrides,
});

const section = (overrides: Partial<SectionSpec>): SectionSpec => ({
  ...newSection(),
  ...overrides,
});

/** Two sets: the second opens once half the weight of the first is scored. */
function spec(firstCorrect: boolean): ChallengeSpec {
  return {
    ...emptyChallengeSpec(),
    text: 'Intro',
    maxPoints: 200,
    maxAttempts: 3,
    score: firstCorrect ? 0.6 : 0,
    lastScoreTime: firstCorrect ? '2026-01-02T03:04:05.000+00:00' : '0001-01-01T00:00:00+00:00',
    submissions: [{ id: 'g', timestamp: 't', sectionIndex: 0, questions: [{ answer: 'a' }] }],
    challenge: {
      text: 'Variant',
      iso: null,
      sections: [
        section({
          name: 'One',
          text: 'First set',
          score: firstCorrect ? 0.6 : 0,
          questions: [
            question({
              text: 'Q1',
              answer: 'secret',
              weight: 0.6,
              penalty: 0.05,
              isCorrect: firstCorrect,
              isGraded: firstCorrect,
            }),
            question({ text: 'Hidden', answer: 'h', weight: 0.1, hidden: true }),
          ],
        }),
        section({
          name: 'Two',
          text: 'Second set',
          preReqPrevSection: 0.5,
          questions: [question({ text: 'Q2', answer: 'two', weight: 0.3 })],
        }),
      ],
    },
  };
}

describe('challengeView', () => {
  it('is null without a variant or without sections', () => {
    expect(challengeView(emptyChallengeSpec())).toBeNull();
    expect(
      challengeView({ ...emptyChallengeSpec(), challenge: { text: '', sections: [], iso: null } }),
    ).toBeNull();
  });

  it('shows the first open set without hidden questions, weights in points', () => {
    const view = challengeView(spec(false))!;
    expect(view).toEqual({
      text: 'Intro\n\nVariant',
      maxPoints: 200,
      maxAttempts: 3,
      attempts: 1,
      score: 0,
      sectionCount: 2,
      sectionIndex: 0,
      sectionScore: 0,
      sectionText: 'First set',
      lastScoreTime: '0001-01-01T00:00:00+00:00',
      questions: [
        {
          text: 'Q1',
          hint: '',
          answer: '',
          example: '',
          weight: 120,
          penalty: 10,
          isCorrect: false,
          isGraded: false,
        },
      ],
    });
  });

  it('moves to the next open set once the current one is complete, showing found answers', () => {
    const s = spec(true);
    expect(currentSectionIndex(s.challenge!)).toBe(0); // the hidden question is not answered
    s.challenge!.sections[0]!.questions[1]!.isCorrect = true;
    const view = challengeView(s)!;
    expect(view.sectionIndex).toBe(1);
    expect(view.sectionText).toBe('Second set');
    expect(view.score).toBe(120);
    s.challenge!.sections[1]!.questions[0]!.isCorrect = true;
    // Every open set done: the last one stays on screen.
    expect(currentSectionIndex(s.challenge!)).toBe(1);
  });

  it('shows the answer that was submitted once graded correct, never the answer key', () => {
    const s = spec(true);
    s.challenge!.sections[0]!.questions[0]! = {
      ...s.challenge!.sections[0]!.questions[0]!,
      answer: 'secret|hush',
      grader: 'matchAny',
    };
    s.challenge!.sections[0]!.questions[1]!.hidden = false;
    s.submissions = [
      { id: 'g', timestamp: 't1', sectionIndex: 0, questions: [{ answer: 'nope' }] },
      { id: 'g', timestamp: 't2', sectionIndex: 1, questions: [{ answer: 'Hush' }] },
      {
        id: 'g',
        timestamp: 't3',
        sectionIndex: 0,
        questions: [{ answer: 'Hush' }, { answer: 'x' }],
      },
    ];
    const [found, open] = challengeView(s)!.questions;
    expect(found!.answer).toBe('Hush');
    expect(open!.answer).toBe('');
    const progress = challengeProgress(s, { id: 'g', expirationTime: 0 });
    expect(progress.variant.sections[0]!.questions.map((q) => q.answer)).toEqual(['Hush', '']);
  });
});

describe('challengeProgress', () => {
  const game = { id: 'g1', expirationTime: 1_700_000_000_000 };

  it('lists open sets with hidden questions and raw weights, and the next prerequisites', () => {
    const progress = challengeProgress(spec(false), game, 0);
    expect(progress).toMatchObject({
      id: 'g1',
      attempts: 1,
      expiresAtTimestamp: 1_700_000_000_000,
      maxAttempts: 3,
      maxPoints: 200,
      lastScoreTime: null,
      nextSectionPreReqThisSection: 0.5,
      nextSectionPreReqTotal: 0,
      score: 0,
      text: 'Intro',
    });
    expect(progress.variant.totalSectionCount).toBe(2);
    expect(progress.variant.sections).toHaveLength(1);
    expect(progress.variant.sections[0]!.questions.map((q) => [q.text, q.weight])).toEqual([
      ['Q1', 0.6],
      ['Hidden', 0.1],
    ]);
  });

  it('opens the next set once its prerequisite is met', () => {
    const progress = challengeProgress(spec(true), game, 0);
    expect(progress.variant.sections.map((s) => s.name)).toEqual(['One', 'Two']);
    expect(progress.nextSectionPreReqThisSection).toBeNull();
    expect(progress.nextSectionPreReqTotal).toBeNull();
    expect(progress.lastScoreTime).toBe('2026-01-02T03:04:05.000+00:00');
    expect(progress.score).toBe(120);
  });

  it('has empty defaults without a challenge', () => {
    const progress = challengeProgress(emptyChallengeSpec(), game, 0);
    expect(progress.variant).toEqual({ text: '', sections: [], totalSectionCount: 0 });
    expect(progress.attempts).toBe(0);
  });
});
