import { describe, expect, it } from 'vitest';
import {
  ChallengeShapeError,
  emptyChallengeSpec,
  normalizeChallengeSpec,
  parseChallengeText,
  SECTION_NAME_MAX,
  UNSET_DATE,
} from './challenge';
import {
  addItem,
  draftOf,
  editDraft,
  MESSAGES,
  pathAfterRemoval,
  removeItem,
  specOf,
  validateDraft,
  valueAt,
} from './challengeForm';

describe('normalizeChallengeSpec', () => {
  it('keeps canary answers trimmed, without blanks, and writes none for a question without', () => {
    const spec = normalizeChallengeSpec({
      variants: [
        {
          sections: [
            {
              questions: [
                { text: 'Flag?', answer: '##flag##', canaries: [' flag{decoy} ', '', null] },
                { text: 'Port?', answer: '22', canaries: [] },
              ],
            },
          ],
        },
      ],
    });
    const [withCanaries, without] = spec.variants[0]!.sections[0]!.questions;
    expect(withCanaries!.canaries).toEqual(['flag{decoy}']);
    expect(without).not.toHaveProperty('canaries');
    expect(() =>
      normalizeChallengeSpec({ variants: [{ sections: [{ questions: [{ canaries: 'x' }] }] }] }),
    ).toThrow(
      "InvalidPropertyValue 'variants[0].sections[0].questions[0].canaries' must be an array",
    );
  });

  it('gives the empty spec for nothing, with unset dates and empty lists', () => {
    const empty = {
      text: '',
      score: 0,
      lastScoreTime: UNSET_DATE,
      maxPoints: 0,
      maxAttempts: 0,
      customizeScript: null,
      gradingScript: null,
      transforms: [],
      variants: [],
      submissions: [],
      challenge: null,
    };
    expect(normalizeChallengeSpec(undefined)).toEqual(empty);
    expect(normalizeChallengeSpec(null)).toEqual(empty);
    expect(normalizeChallengeSpec({})).toEqual(empty);
    expect(emptyChallengeSpec()).toEqual(empty);
  });

  it('fills every missing field of questions, sections and variants with its default', () => {
    const spec = normalizeChallengeSpec({
      transforms: [{ key: 'k' }],
      variants: [{ sections: [{ questions: [{ text: 'What?' }] }] }],
    });
    expect(spec.transforms).toEqual([{ key: 'k', value: '' }]);
    expect(spec.variants).toEqual([
      {
        text: '',
        iso: null,
        sections: [
          {
            name: null,
            preReqPrevSection: 0,
            preReqTotal: 0,
            score: 0,
            text: '',
            questions: [
              {
                text: 'What?',
                hint: '',
                answer: '',
                example: '',
                weight: 0,
                penalty: 0,
                grader: 'match',
                hidden: false,
                isCorrect: false,
                isGraded: false,
              },
            ],
          },
        ],
      },
    ]);
  });

  it("forces the first section's prerequisites to 0 and keeps the others", () => {
    const spec = normalizeChallengeSpec({
      variants: [
        {
          sections: [
            { preReqTotal: 0.5, preReqPrevSection: 0.5 },
            { preReqTotal: 0.25, preReqPrevSection: '0.5' },
          ],
        },
      ],
    });
    const [first, second] = spec.variants[0]!.sections;
    expect([first!.preReqTotal, first!.preReqPrevSection]).toEqual([0, 0]);
    expect([second!.preReqTotal, second!.preReqPrevSection]).toEqual([0.25, 0.5]);
  });

  it('reads a stored spec whose prerequisites were saved in points as fractions', () => {
    // What PUT challenge stored before prerequisites were normalized at save.
    const stored = JSON.stringify({
      variants: [
        {
          sections: [
            { questions: [{ weight: 30 }, { weight: 20 }] },
            { preReqPrevSection: 30, preReqTotal: 0.5, questions: [{ weight: 50 }] },
          ],
        },
      ],
    });
    const second = parseChallengeText(stored).variants[0]!.sections[1]!;
    expect([second.preReqPrevSection, second.preReqTotal]).toEqual([0.3, 0.5]);
  });

  it('moves paths after a removed item up one, and drops those inside it', () => {
    const removed = 'variants.0.sections.1';
    expect(
      [
        'variants.0.sections.1',
        'variants.0.sections.1.questions.0.text',
        'variants.0.sections.0.name',
        'variants.0.sections.2.questions.3',
        'variants.0.sections.10.name',
        'variants.1.sections.2',
        'transforms.0.key',
      ].map((path) => pathAfterRemoval(path, removed)),
    ).toEqual([
      null,
      null,
      'variants.0.sections.0.name',
      'variants.0.sections.1.questions.3',
      'variants.0.sections.9.name',
      'variants.1.sections.2',
      'transforms.0.key',
    ]);
  });

  it('turns blank section names into null and cuts long ones to 100', () => {
    const spec = normalizeChallengeSpec({
      variants: [{ sections: [{ name: '   ' }, { name: 'x'.repeat(150) }, { name: 'Recon' }] }],
    });
    expect(spec.variants[0]!.sections.map((s) => s.name)).toEqual([
      null,
      'x'.repeat(SECTION_NAME_MAX),
      'Recon',
    ]);
  });

  it('reads graders in any case or by number, and defaults to match', () => {
    const spec = normalizeChallengeSpec({
      variants: [
        {
          sections: [
            {
              questions: [
                { grader: 'MatchAny' },
                { grader: 2 },
                { grader: 'matchalpha' },
                { grader: null },
              ],
            },
          ],
        },
      ],
    });
    expect(spec.variants[0]!.sections[0]!.questions.map((q) => q.grader)).toEqual([
      'matchAny',
      'matchAll',
      'matchAlpha',
      'match',
    ]);
  });

  it.each([
    [[], "InvalidPropertyValue '' must be an object"],
    [{ text: 5 }, "InvalidPropertyValue 'text' must be a string"],
    [{ transforms: {} }, "InvalidPropertyValue 'transforms' must be an array"],
    [
      { variants: [{ sections: [{ questions: [{ weight: 'heavy' }] }] }] },
      "InvalidPropertyValue 'variants[0].sections[0].questions[0].weight' must be a number",
    ],
    [
      { variants: [{ sections: [{}, { questions: [{ grader: 'fuzzy' }] }] }] },
      "InvalidPropertyValue 'variants[0].sections[1].questions[0].grader' must be one of match, matchAny, matchAll, matchAlpha",
    ],
    [{ maxPoints: 1.5 }, "InvalidPropertyValue 'maxPoints' must be an integer"],
  ])('rejects %j naming the field', (value, message) => {
    expect(() => normalizeChallengeSpec(value)).toThrow(new ChallengeShapeError(message));
  });

  it('reads stored text, and text that is not a spec as the empty spec', () => {
    expect(parseChallengeText('')).toEqual(emptyChallengeSpec());
    expect(parseChallengeText('{not json')).toEqual(emptyChallengeSpec());
    expect(parseChallengeText('{"text":"Find the flag"}').text).toBe('Find the flag');
  });
});

const SPEC = normalizeChallengeSpec({
  text: 'Intro',
  maxPoints: 100,
  transforms: [{ key: 'flag', value: 'hex:8' }],
  variants: [
    {
      text: 'Variant A',
      iso: { file: 'tools.iso', targets: 'kali' },
      sections: [
        {
          name: 'Recon',
          questions: [{ text: 'Port?', answer: '22', weight: 0.5, penalty: 0.1 }],
        },
        { preReqTotal: 0.5, questions: [{ text: 'Flag?', answer: '##flag##' }] },
      ],
    },
  ],
});

describe('the challenge form draft', () => {
  it('round-trips a spec, with number fields as text while editing', () => {
    const draft = draftOf(SPEC);
    expect(valueAt(draft, 'variants.0.sections.0.questions.0.weight')).toBe('0.5');
    expect(valueAt(draft, 'variants.0.sections.1.questions.0.weight')).toBe('');
    expect(specOf(draft)).toEqual(SPEC);
  });

  it('saves an empty ISO as null and blank names as null', () => {
    const draft = editDraft(
      editDraft(draftOf(SPEC), 'variants.0.iso.file', ''),
      'variants.0.iso.targets',
      '',
    );
    const named = editDraft(draft, 'variants.0.sections.0.name', '  ');
    const spec = specOf(named);
    expect(spec.variants[0]!.iso).toBeNull();
    expect(spec.variants[0]!.sections[0]!.name).toBeNull();
  });

  it('edits only existing fields of the same kind', () => {
    const draft = draftOf(SPEC);
    expect(editDraft(draft, 'variants.0.sections.0.questions.0.hidden', true)).not.toBe(draft);
    expect(editDraft(draft, 'variants.0.sections.0.questions.0.hidden', 'yes')).toBe(draft);
    expect(editDraft(draft, 'variants.3.text', 'x')).toBe(draft);
    expect(editDraft(draft, 'variants.0.sections.0.questions.0.grader', 'fuzzy')).toBe(draft);
    const graded = editDraft(draft, 'variants.0.sections.0.questions.0.grader', 'matchAll');
    expect(valueAt(graded, 'variants.0.sections.0.questions.0.grader')).toBe('matchAll');
    expect(valueAt(draft, 'variants.0.sections.0.questions.0.grader')).toBe('match');
  });

  it('adds and removes transforms, variants, question sets and questions', () => {
    let draft = draftOf(SPEC);
    draft = addItem(draft, 'transforms');
    draft = addItem(draft, 'variants');
    draft = addItem(draft, 'variants.1.sections');
    draft = addItem(draft, 'variants.1.sections.0.questions');
    expect(draft.transforms).toHaveLength(2);
    expect(valueAt(draft, 'variants.1.sections.0.questions.0.grader')).toBe('match');
    draft = removeItem(draft, 'variants.0.sections.0');
    expect(valueAt(draft, 'variants.0.sections.0.questions.0.text')).toBe('Flag?');
    draft = removeItem(draft, 'transforms.0');
    expect(draft.transforms).toEqual([{ key: '', value: '' }]);
    expect(removeItem(draft, 'variants.9')).toBe(draft);
    expect(removeItem(draft, 'text')).toBe(draft);
  });

  it('validates required fields, digits, transform values and section names', () => {
    let draft = addItem(draftOf(SPEC), 'transforms');
    draft = editDraft(draft, 'transforms.1.value', 'hx:8');
    draft = addItem(draft, 'variants.0.sections.1.questions');
    draft = editDraft(draft, 'variants.0.sections.1.questions.1.weight', '2O');
    draft = editDraft(draft, 'variants.0.sections.1.preReqPrevSection', '-1');
    draft = editDraft(draft, 'variants.0.sections.0.name', 'n'.repeat(101));
    expect(validateDraft(draft)).toEqual({
      'transforms.1.key': MESSAGES.transformKey,
      'transforms.1.value': expect.stringContaining("Unknown type 'hx'"),
      'variants.0.sections.0.name': MESSAGES.sectionName,
      'variants.0.sections.1.preReqPrevSection': MESSAGES.digits,
      'variants.0.sections.1.questions.1.text': MESSAGES.questionText,
      'variants.0.sections.1.questions.1.answer': MESSAGES.answer,
      'variants.0.sections.1.questions.1.weight': MESSAGES.digits,
    });
    expect(validateDraft(draftOf(SPEC))).toEqual({});
  });

  it.each(['', '0', '25', '0.25', '.5', '100.'])('accepts %j as digits', (weight) => {
    const draft = editDraft(draftOf(SPEC), 'variants.0.sections.0.questions.0.weight', weight);
    expect(validateDraft(draft)).toEqual({});
  });
});
