import { idParams } from '../workspace/schemas';

// JSON schemas of the challenge routes (wire reference §2.3). Requests are read leniently, as the
// reference's JSON reader does (nulls, numbers as strings, graders by name in any case or by
// number); the challenge service checks the shape field by field and names what is wrong.
// Responses are the normalized spec, every field written out.

export { idParams };

const text = { type: ['string', 'null'] } as const;
// anyOf rather than a type list: Ajv's strict mode allows only `null` beside another type.
const number = { anyOf: [{ type: 'number' }, { type: 'string' }, { type: 'null' }] } as const;
const flag = { type: ['boolean', 'null'] } as const;
const list = (items: object) => ({ type: ['array', 'null'], items }) as const;

const image = {
  type: ['object', 'null'],
  properties: { image: text, script: text },
} as const;

const question = {
  type: 'object',
  properties: {
    text,
    hint: text,
    answer: text,
    example: text,
    weight: number,
    penalty: number,
    grader: { anyOf: [{ type: 'string' }, { type: 'integer' }, { type: 'null' }] },
    hidden: flag,
    isCorrect: flag,
    isGraded: flag,
    // Ours: decoy answers no gamespace is given (src/domain/variantSpec.ts).
    canaries: list(text),
  },
} as const;

const section = {
  type: 'object',
  properties: {
    name: text,
    preReqPrevSection: number,
    preReqTotal: number,
    score: number,
    text,
    questions: list(question),
  },
} as const;

const variant = {
  type: ['object', 'null'],
  properties: {
    text,
    sections: list(section),
    iso: {
      type: ['object', 'null'],
      properties: { file: text, targets: text, downloadable: flag, manifest: list(text) },
    },
  },
} as const;

export const challengeBody = {
  type: 'object',
  properties: {
    text,
    score: number,
    lastScoreTime: text,
    maxPoints: number,
    maxAttempts: number,
    customizeScript: image,
    gradingScript: image,
    transforms: list({ type: 'object', properties: { key: text, value: text } }),
    variants: list(variant),
    submissions: list({ type: 'object' }),
    challenge: variant,
  },
} as const;

// The response: what normalizeChallengeSpec returns.
const str = { type: 'string' } as const;
const num = { type: 'number' } as const;
const bool = { type: 'boolean' } as const;
const nullable = (schema: object) => ({ anyOf: [schema, { type: 'null' }] });

const imageOut = {
  type: 'object',
  properties: { image: str, script: str },
} as const;

const questionOut = {
  type: 'object',
  properties: {
    text: str,
    hint: str,
    answer: str,
    example: str,
    weight: num,
    penalty: num,
    grader: { type: 'string', enum: ['match', 'matchAny', 'matchAll', 'matchAlpha'] },
    hidden: bool,
    isCorrect: bool,
    isGraded: bool,
    canaries: { type: 'array', items: str },
  },
} as const;

const variantOut = {
  type: 'object',
  properties: {
    text: str,
    sections: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          name: { type: ['string', 'null'] },
          preReqPrevSection: num,
          preReqTotal: num,
          score: num,
          text: str,
          questions: { type: 'array', items: questionOut },
        },
      },
    },
    iso: nullable({
      type: 'object',
      properties: {
        file: str,
        targets: str,
        downloadable: bool,
        manifest: { type: 'array', items: str },
      },
    }),
  },
} as const;

export const challengeSchema = {
  type: 'object',
  properties: {
    text: str,
    score: num,
    lastScoreTime: str,
    maxPoints: { type: 'integer' },
    maxAttempts: { type: 'integer' },
    customizeScript: nullable(imageOut),
    gradingScript: nullable(imageOut),
    transforms: {
      type: 'array',
      items: { type: 'object', properties: { key: str, value: str } },
    },
    variants: { type: 'array', items: variantOut },
    submissions: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          id: str,
          timestamp: str,
          sectionIndex: { type: 'integer' },
          questions: {
            type: 'array',
            items: { type: 'object', properties: { answer: str } },
          },
        },
      },
    },
    challenge: nullable(variantOut),
  },
} as const;
