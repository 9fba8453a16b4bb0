import { describe, expect, it } from 'vitest';
import {
  emptyChallengeSpec,
  newQuestion,
  newSection,
  UNSET_DATE,
  type ChallengeSpec,
  type QuestionSpec,
  type SectionSpec,
} from '../../src/domain/challenge';
import { points } from '../../src/domain/graders';
import { DomainError } from './errors';
import { isNoOp, regrade, submit, type SubmissionInput } from './grading';

const q = (fields: Partial<QuestionSpec>): QuestionSpec => ({ ...newQuestion(), ...fields });
const section = (questions: QuestionSpec[], fields: Partial<SectionSpec> = {}): SectionSpec => ({
  ...newSection(),
  ...fields,
  questions,
});

/** A gamespace spec: two sets, weights already fractions of 1; set 1 opens at 0.5 scored. */
function spec(fields: Partial<ChallengeSpec> = {}): ChallengeSpec {
  return {
    ...emptyChallengeSpec(),
    maxPoints: 100,
    maxAttempts: 3,
    challenge: {
      text: '',
      iso: null,
      sections: [
        section([
          q({ answer: 'alpha', weight: 0.25 }),
          q({ answer: 'red|blue', grader: 'matchAny', weight: 0.25, penalty: 0.05 }),
        ]),
        section([q({ answer: 'x|y', grader: 'matchAll', weight: 0.5 })], { preReqTotal: 0.5 }),
      ],
    },
    ...fields,
  };
}

const T0 = Date.parse('2026-01-01T00:00:00Z');
const active = { active: true, now: T0 };
const input = (sectionIndex: number, ...answers: string[]): SubmissionInput => ({
  id: 'gs',
  sectionIndex,
  questions: answers.map((answer) => ({ answer })),
});

const rejection = (f: () => unknown) => {
  try {
    f();
  } catch (error) {
    return error instanceof DomainError ? error.name : String(error);
  }
  return 'accepted';
};

describe('grading a submission (§4.4)', () => {
  it('grades each answer by position, scores weight minus penalty and records the time', () => {
    const r = submit(spec(), input(0, 'ALPHA', 'blue'), active);
    expect(r.accepted).toBe(true);
    const s0 = r.spec.challenge!.sections[0]!;
    expect(s0.questions.map((x) => [x.isCorrect, x.isGraded])).toEqual([
      [true, true],
      [true, true],
    ]);
    expect(s0.score).toBeCloseTo(0.45);
    expect(r.spec.score).toBeCloseTo(0.45);
    expect(r.spec.lastScoreTime).toBe('2026-01-01T00:00:00.000+00:00');
    expect(r.spec.submissions).toEqual([
      {
        id: 'gs',
        timestamp: '2026-01-01T00:00:00.000+00:00',
        sectionIndex: 0,
        questions: [{ answer: 'ALPHA' }, { answer: 'blue' }],
      },
    ]);
    expect(r.completed).toBe(false);
  });

  it('keeps lastScoreTime when the score does not increase, and leaves correct answers alone', () => {
    const first = submit(spec(), input(0, 'alpha', 'green'), active).spec;
    const later = { active: true, now: T0 + 60_000 };
    const second = submit(first, input(0, 'wrong', 'purple'), later).spec;
    expect(second.lastScoreTime).toBe(first.lastScoreTime);
    expect(second.challenge!.sections[0]!.questions[0]!.isCorrect).toBe(true);
    expect(second.challenge!.sections[0]!.questions[1]).toMatchObject({
      isCorrect: false,
      isGraded: true,
    });
  });

  it('treats duplicates (in any section) and blank submissions as no-ops, before any check', () => {
    const first = submit(spec(), input(0, 'alpha', 'green'), active).spec;
    expect(isNoOp(first, input(1, 'alpha', 'green'))).toBe(true);
    const expired = { active: false, now: T0 };
    const dup = submit(first, input(7, 'alpha', 'green'), expired);
    expect(dup).toEqual({ spec: first, accepted: false, completed: false });
    expect(submit(first, input(9, ' ', ''), expired).accepted).toBe(false);
    expect(submit(first, input(0), expired).accepted).toBe(false);
  });

  it('rejects in the reference order: index, expiry, attempts of this section, prerequisites', () => {
    const used = spec({ maxAttempts: 1 });
    const once = submit(used, input(0, 'a', 'b'), active).spec;
    const expired = { active: false, now: T0 };
    expect(rejection(() => submit(once, input(2, 'z'), expired))).toBe('InvalidOperation');
    expect(rejection(() => submit(once, input(-1, 'z'), active))).toBe('InvalidOperation');
    expect(rejection(() => submit(once, input(0, 'z'), expired))).toBe('GamespaceIsExpired');
    expect(rejection(() => submit(once, input(0, 'z'), active))).toBe('AttemptLimitReached');
    // Section 1 has had no submission: its own limit is not reached, its prerequisite is not met.
    expect(rejection(() => submit(once, input(1, 'z'), active))).toBe('QuestionSetLockedByPreReq');
    expect(rejection(() => submit(spec({ challenge: null }), input(0, 'a'), active))).toBe(
      'InvalidOperation',
    );
  });

  it('opens the next set once its prerequisite is scored (weights, penalties ignored)', () => {
    const s = submit(spec(), input(0, 'alpha', 'red'), active).spec;
    expect(s.score).toBeCloseTo(0.45);
    const next = submit(s, input(1, 'y, x'), active);
    expect(next.spec.challenge!.sections[1]!.questions[0]!.isCorrect).toBe(true);
  });

  it('completes at full score', () => {
    const full = spec({
      maxAttempts: 0,
      challenge: { text: '', iso: null, sections: [section([q({ answer: 'a', weight: 1 })])] },
    });
    const r = submit(full, input(0, 'a'), active);
    expect(r.spec.score).toBe(1);
    expect(r.completed).toBe(true);
  });

  it('counts a score a rounding error short of 1 as full', () => {
    const thirds = spec({
      maxAttempts: 0,
      challenge: {
        text: '',
        iso: null,
        sections: [section([0.1, 0.2, 0.7].map((weight, i) => q({ answer: `a${i}`, weight })))],
      },
    });
    const r = submit(thirds, input(0, 'a0', 'a1', 'a2'), active);
    expect(r.completed).toBe(true);
  });

  it('completes when the submissions of all sections together reach maxAttempts (quirk)', () => {
    let s = spec({ maxAttempts: 3 });
    s = submit(s, input(0, 'alpha', 'red'), active).spec;
    const second = submit(s, input(1, 'nope'), active);
    expect(second.completed).toBe(false);
    // The third submission overall ends the game though each section has attempts left.
    const third = submit(second.spec, input(1, 'still no'), active);
    expect(third.completed).toBe(true);
    expect(third.spec.submissions.filter((x) => x.sectionIndex === 1)).toHaveLength(2);
  });

  it('reports points rounded half away from zero', () => {
    expect(points(0.125, 100)).toBe(13);
    expect(points(0.45, 100)).toBe(45);
    expect(points(-0.125, 100)).toBe(-13);
  });
});

describe('regrade (§4.4)', () => {
  it('copies graders and answers by position and grades the stored submissions again', () => {
    let s = spec({ maxAttempts: 0 });
    s = submit(s, input(0, 'alpha', 'green'), active).spec;
    s = submit(s, input(0, 'beta', 'purple'), { active: true, now: T0 + 1000 }).spec;
    expect(s.score).toBeCloseTo(0.25);
    const workspace = spec().challenge!;
    workspace.sections[0]!.questions[0]!.answer = 'beta';
    workspace.sections[0]!.questions[1]!.answer = 'green';
    workspace.sections[0]!.questions[1]!.grader = 'match';
    const r = regrade(s, workspace);
    const q0 = r.spec.challenge!.sections[0]!.questions;
    expect(q0.map((x) => x.answer)).toEqual(['beta', 'green']);
    expect(q0.map((x) => x.isCorrect)).toEqual([true, true]);
    expect(r.spec.score).toBeCloseTo(0.45);
    // The last gain came with the second submission.
    expect(r.spec.lastScoreTime).toBe('2026-01-01T00:00:01.000+00:00');
    expect(r.spec.submissions).toEqual(s.submissions);
    expect(r.completed).toBe(false);
  });

  it('stops at the first full score', () => {
    let s = spec({
      maxAttempts: 0,
      challenge: { text: '', iso: null, sections: [section([q({ answer: 'x', weight: 1 })])] },
    });
    s = submit(s, input(0, 'a'), active).spec;
    s = submit(s, input(0, 'b'), active).spec;
    const r = regrade(s, { sections: [section([q({ answer: 'a', weight: 1 })])] });
    expect(r.completed).toBe(true);
    expect(r.spec.score).toBe(1);
  });

  it('without a workspace variant regrades against the answers the gamespace has', () => {
    let s = spec({ maxAttempts: 0 });
    s = submit(s, input(0, 'alpha', 'red'), active).spec;
    const r = regrade(s, null);
    expect(r.spec.score).toBeCloseTo(0.45);
    expect(regrade({ ...s, score: 0, lastScoreTime: UNSET_DATE }, null).spec.score).toBeCloseTo(
      0.45,
    );
  });
});
