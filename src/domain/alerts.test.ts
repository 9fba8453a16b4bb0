import { describe, expect, it } from 'vitest';
import { alertSentence, isCanaryAnswer, questionLabel, sharedAnswerOwners } from './alerts';

const others = [
  { gamespaceId: 'red', answer: 'flag{a1b2c3}' },
  { gamespaceId: 'green', answer: 'flag{d4e5f6}' },
];

describe('answer-sharing alerts', () => {
  it("finds the gamespace whose generated answer was submitted, by the question's grader", () => {
    expect(sharedAnswerOwners('match', 'flag{0000}', 'flag{a1b2c3}', others)).toEqual(['red']);
    // match ignores case and spaces, as grading does.
    expect(sharedAnswerOwners('match', 'flag{0000}', ' FLAG{D4E5 F6}', others)).toEqual(['green']);
    // matchAlpha compares letters and digits only.
    expect(sharedAnswerOwners('matchAlpha', 'x', 'flag-a1b2c3', others)).toEqual(['red']);
    expect(sharedAnswerOwners('match', 'flag{0000}', 'flag{a1b2c3}x', others)).toEqual([]);
  });

  it("never alerts for the submitter's own answer nor for a blank one", () => {
    // A question without transforms: every gamespace has the same answer.
    const same = [{ gamespaceId: 'red', answer: 'alpha' }];
    expect(sharedAnswerOwners('match', 'alpha', 'ALPHA', same)).toEqual([]);
    expect(sharedAnswerOwners('matchAny', 'flag{a1b2c3}|x', 'flag{a1b2c3}', others)).toEqual([]);
    expect(sharedAnswerOwners('match', '', '   ', [{ gamespaceId: 'red', answer: '' }])).toEqual(
      [],
    );
  });

  it('every gamespace whose answer it is, when several share it', () => {
    const twins = [...others, { gamespaceId: 'blue', answer: 'flag{A1B2C3}' }];
    expect(sharedAnswerOwners('match', 'flag{0000}', 'flag{a1b2c3}', twins)).toEqual([
      'red',
      'blue',
    ]);
  });

  it('a canary, by the grader, unless it is also the right answer', () => {
    expect(isCanaryAnswer('match', 'flag{0000}', ['flag{decoy}'], 'FLAG{DECOY}')).toBe(true);
    expect(isCanaryAnswer('match', 'flag{0000}', ['flag{decoy}'], 'flag{other}')).toBe(false);
    expect(isCanaryAnswer('match', 'flag{0000}', undefined, 'flag{decoy}')).toBe(false);
    expect(isCanaryAnswer('match', 'flag{decoy}', ['flag{decoy}'], 'flag{decoy}')).toBe(false);
    expect(isCanaryAnswer('match', 'x', [''], '')).toBe(false);
  });

  it('says who submitted whose answer to which question', () => {
    const facts = { sectionIndex: 0, sectionName: null, questionIndex: 1 };
    expect(questionLabel(facts)).toBe('Question 2 of Set 1');
    expect(questionLabel({ ...facts, sectionName: 'Recon' })).toBe('Question 2 of Set 1 (Recon)');
    expect(
      alertSentence({ ...facts, kind: 'shared', submitterNames: 'Blue', ownerNames: 'Red' }),
    ).toBe('Blue submitted the answer generated for Red — Question 2 of Set 1');
    expect(
      alertSentence({ ...facts, kind: 'canary', submitterNames: 'Blue', ownerNames: '' }),
    ).toBe('Blue submitted a canary answer — Question 2 of Set 1');
  });
});
