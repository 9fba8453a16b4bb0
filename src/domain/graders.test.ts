import { describe, expect, it } from 'vitest';
import { newQuestion, newSection, type QuestionSpec, type VariantSpec } from './challenge';
import {
  grade,
  isMatch,
  isSectionEligible,
  normalizePrerequisites,
  points,
  sectionScore,
  setQuestionWeights,
} from './graders';
import { forAll } from './testing/property';

const q = (fields: Partial<QuestionSpec>): QuestionSpec => ({ ...newQuestion(), ...fields });

const variantOf = (...sections: Array<Array<Partial<QuestionSpec>>>): VariantSpec => ({
  text: '',
  iso: null,
  sections: sections.map((questions) => ({ ...newSection(), questions: questions.map(q) })),
});

const weights = (v: VariantSpec) => v.sections.flatMap((s) => s.questions.map((x) => x.weight));
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

describe('graders', () => {
  it('match compares the first alternative, lowercase and without spaces', () => {
    expect(isMatch('match', 'Blue Team', 'blueteam')).toBe(true);
    expect(isMatch('match', 'blueteam', ' BLUE team ')).toBe(true);
    expect(isMatch('match', 'red|blue', 'red')).toBe(true);
    expect(isMatch('match', 'red|blue', 'blue')).toBe(false);
    expect(isMatch('match', 'blue', 'blue!')).toBe(false);
  });

  it('matchAny accepts any pipe-delimited alternative', () => {
    expect(isMatch('matchAny', 'red|Blue Team|green', 'blue team')).toBe(true);
    expect(isMatch('matchAny', 'red|blue', 'Red')).toBe(true);
    expect(isMatch('matchAny', 'red|blue', 'red|blue')).toBe(false);
    expect(isMatch('matchAny', 'red|blue', 'purple')).toBe(false);
  });

  it('matchAll wants every alternative among the tokens, in any order and separator', () => {
    expect(isMatch('matchAll', 'alpha|beta|gamma', 'gamma, Alpha;beta')).toBe(true);
    expect(isMatch('matchAll', 'alpha|beta', 'beta\talpha')).toBe(true);
    expect(isMatch('matchAll', 'alpha|beta', 'beta:alpha|delta')).toBe(true);
    expect(isMatch('matchAll', 'alpha|beta|gamma', 'alpha beta')).toBe(false);
    expect(isMatch('matchAll', 'alpha|beta', 'alphabeta')).toBe(false);
  });

  it('matchAlpha compares ASCII letters and digits only', () => {
    expect(isMatch('matchAlpha', '10.0.0.1', '10-0-0-1')).toBe(true);
    expect(isMatch('matchAlpha', "C:\\Users\\Bob's", 'cusersbobs')).toBe(true);
    expect(isMatch('matchAlpha', 'abc', 'abd')).toBe(false);
  });

  it('every grader accepts the expected answer itself (when it has no separators)', () => {
    forAll((random) => {
      const letters = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
      const word = Array.from(
        { length: random.int(1, 12) },
        () => letters[random.int(0, letters.length)],
      ).join('');
      for (const g of ['match', 'matchAny', 'matchAll', 'matchAlpha'] as const) {
        expect(isMatch(g, word, word)).toBe(true);
        expect(isMatch(g, word, `  ${word.toUpperCase()} `)).toBe(true);
      }
    });
  });

  it('grade skips a blank submission and a question already correct', () => {
    const open = q({ answer: 'x' });
    expect(grade(open, '   ')).toEqual({ isCorrect: false, isGraded: false });
    expect(grade(open, 'y')).toEqual({ isCorrect: false, isGraded: true });
    expect(grade(open, 'X')).toEqual({ isCorrect: true, isGraded: true });
    const done = q({ answer: 'x', isCorrect: true, isGraded: true });
    expect(grade(done, 'wrong')).toEqual({ isCorrect: true, isGraded: true });
  });
});

describe('setQuestionWeights', () => {
  it('keeps fractions that add up to 1 as they are', () => {
    expect(weights(setQuestionWeights(variantOf([{ weight: 0.25 }, { weight: 0.75 }])))).toEqual([
      0.25, 0.75,
    ]);
  });

  it('reads weights adding up to more than 1 as percentages', () => {
    expect(
      weights(setQuestionWeights(variantOf([{ weight: 20 }], [{ weight: 30 }, { weight: 50 }]))),
    ).toEqual([0.2, 0.3, 0.5]);
    expect(weights(setQuestionWeights(variantOf([{ weight: 150 }, { weight: 50 }])))).toEqual([
      0.75, 0.25,
    ]);
  });

  it('shares what is left among the zero weights, the last taking the exact remainder', () => {
    const v = setQuestionWeights(
      variantOf([{ weight: 0 }, { weight: 40 }], [{ weight: 0 }, { weight: 0 }]),
    );
    const w = weights(v);
    expect(w[1]).toBe(0.4);
    expect(w[0]).toBeCloseTo(0.2, 12);
    expect(w[2]).toBeCloseTo(0.2, 12);
    expect(sum(w)).toBe(1);
    expect(weights(setQuestionWeights(variantOf([{}, {}, {}])))).toEqual([1 / 3, 1 / 3, 1 - 2 / 3]);
  });

  it('property: with a zero weight and percentages up to 100, the weights add up to 1', () => {
    forAll((random) => {
      const n = random.int(1, 12);
      const raw = Array.from({ length: n }, () => (random.int(0, 3) === 0 ? 0 : random.int(1, 15)));
      raw[random.int(0, n)] = 0;
      const v = variantOf(
        raw.slice(0, n >> 1).map((weight) => ({ weight })),
        raw.slice(n >> 1).map((weight) => ({ weight })),
      );
      const w = weights(setQuestionWeights(v));
      expect(Math.abs(sum(w) - 1)).toBeLessThan(1e-9);
      expect(w.every((x) => x >= 0 && x <= 1)).toBe(true);
    });
  });

  it('property: weights are scaled, never reordered, and the input is not changed', () => {
    forAll((random) => {
      const raw = Array.from({ length: random.int(1, 8) }, () => random.int(1, 40));
      const v = variantOf(raw.map((weight) => ({ weight })));
      const w = weights(setQuestionWeights(v));
      expect(weights(v)).toEqual(raw);
      const divisor = sum(raw) > 1 ? Math.max(sum(raw), 100) : 1;
      w.forEach((x, i) => expect(x).toBeCloseTo(raw[i]! / divisor, 12));
    });
  });
});

describe('question set eligibility', () => {
  const locked = (preReqTotal: number, preReqPrevSection: number) => ({
    ...newSection(),
    preReqTotal,
    preReqPrevSection,
    questions: [q({ weight: 0.5 })],
  });

  it('opens a set when the total and the previous set reach their requirements', () => {
    const v: VariantSpec = {
      text: '',
      iso: null,
      sections: [
        {
          ...newSection(),
          questions: [q({ weight: 0.3, isCorrect: true, isGraded: true }), q({ weight: 0.2 })],
        },
        locked(0, 0.3),
        locked(0, 0.3),
        locked(0.3, 0),
        locked(0.31, 0),
      ],
    };
    // Set 2 follows set 1, where nothing is scored yet; index 5 does not exist.
    expect([0, 1, 2, 3, 4, 5].map((i) => isSectionEligible(v, i))).toEqual([
      true,
      true,
      false,
      true,
      false,
      false,
    ]);
  });

  it('ignores penalties and ungraded answers for eligibility, but not for the score', () => {
    const section = {
      ...newSection(),
      questions: [
        q({ weight: 0.4, penalty: 0.1, isCorrect: true, isGraded: true }),
        q({ weight: 0.2, isCorrect: true, isGraded: false }),
      ],
    };
    const v: VariantSpec = { text: '', iso: null, sections: [section, locked(0.4, 0.4)] };
    expect(isSectionEligible(v, 1)).toBe(true);
    expect(sectionScore(section)).toBeCloseTo(0.5, 12);
  });
});

describe('prerequisites as fractions', () => {
  /** Set 1 with the given weights, set 2 with prerequisites and one question of `last`. */
  const twoSets = (
    first: [number, number],
    last: number,
    preReq: { preReqTotal?: number; preReqPrevSection?: number },
  ): VariantSpec => ({
    text: '',
    iso: null,
    sections: [
      { ...newSection(), questions: first.map((weight) => q({ weight })) },
      { ...newSection(), ...preReq, questions: [q({ weight: last })] },
    ],
  });
  const preReqs = (v: VariantSpec) => v.sections.map((s) => [s.preReqTotal, s.preReqPrevSection]);

  it('reads prerequisites above 1 in the units of whole-number weights', () => {
    const v = normalizePrerequisites(twoSets([30, 20], 50, { preReqPrevSection: 30 }));
    expect(preReqs(v)).toEqual([
      [0, 0],
      [0, 0.3],
    ]);
    // Weights adding up to more than 100 are points out of their sum.
    const big = normalizePrerequisites(twoSets([100, 100], 200, { preReqTotal: 100 }));
    expect(big.sections[1]!.preReqTotal).toBe(0.25);
  });

  it('keeps fractions as they are, whatever the weights', () => {
    const withWhole = twoSets([30, 20], 50, { preReqTotal: 0.5, preReqPrevSection: 0.3 });
    const withFractions = twoSets([0.3, 0.2], 0.5, { preReqTotal: 1, preReqPrevSection: 0.3 });
    expect(preReqs(normalizePrerequisites(withWhole))[1]).toEqual([0.5, 0.3]);
    expect(preReqs(normalizePrerequisites(withFractions))[1]).toEqual([1, 0.3]);
  });

  it('reads whole numbers as percentages when the weights are fractions (mixed units)', () => {
    const v = normalizePrerequisites(twoSets([0.3, 0.2], 0.5, { preReqPrevSection: 30 }));
    expect(v.sections[1]!.preReqPrevSection).toBe(0.3);
  });

  it("forces the first set's prerequisites to 0 and caps the others at 1", () => {
    const v = twoSets([30, 20], 50, { preReqTotal: 150 });
    v.sections[0] = { ...v.sections[0]!, preReqTotal: 30, preReqPrevSection: 0.5 };
    expect(preReqs(normalizePrerequisites(v))).toEqual([
      [0, 0],
      [1, 0],
    ]);
  });

  it('property: normalizing again changes nothing, and the result is a fraction', () => {
    forAll((random) => {
      const weights: [number, number] = [random.int(0, 120), random.int(0, 120)];
      const v = normalizePrerequisites(
        twoSets(weights, random.int(0, 120), {
          preReqTotal: random.int(0, 300) / random.int(1, 4),
          preReqPrevSection: random.int(0, 300) / random.int(1, 4),
        }),
      );
      expect(normalizePrerequisites(v)).toEqual(v);
      expect(preReqs(v)[1]!.every((x) => x >= 0 && x <= 1)).toBe(true);
    });
  });

  it('opens set 2 of the reported challenge once question 1 (weight 30) is answered', () => {
    const registered = setQuestionWeights(
      normalizePrerequisites(twoSets([30, 20], 50, { preReqPrevSection: 30 })),
    );
    expect(isSectionEligible(registered, 1)).toBe(false);
    const [first, second] = registered.sections;
    const answered = {
      ...registered,
      sections: [
        {
          ...first!,
          questions: first!.questions.map((x, i) => ({ ...x, isCorrect: i === 0, isGraded: true })),
        },
        second!,
      ],
    };
    expect(isSectionEligible(answered, 1)).toBe(true);
  });
});

describe('points', () => {
  it('rounds half away from zero', () => {
    expect(points(0.125, 100)).toBe(13);
    expect(points(0.124, 100)).toBe(12);
    expect(points(0.5, 5)).toBe(3);
    expect(points(-0.5, 5)).toBe(-3);
    expect(points(1 / 3, 100)).toBe(33);
    expect(points(0, 100)).toBe(0);
  });

  it('property: symmetric, whole, and within half a point of the exact value', () => {
    forAll((random) => {
      const weight = random.next();
      const max = random.int(0, 1000);
      const p = points(weight, max);
      expect(Number.isInteger(p)).toBe(true);
      expect(points(-weight, max)).toBe(-p || 0);
      expect(Math.abs(p - weight * max)).toBeLessThanOrEqual(0.5);
    });
  });
});
