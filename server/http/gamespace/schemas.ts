// JSON schemas of the play routes (wire reference §1.2, §2.2). Bodies are read leniently (nulls
// accepted, unknown fields ignored) as the reference's JSON reader does; responses write every
// field out, nulls included.

const str = { type: 'string' } as const;
const nullableStr = { type: ['string', 'null'] } as const;
const int = { type: 'integer' } as const;
const num = { type: 'number' } as const;
const bool = { type: 'boolean' } as const;
// null first: Ajv's type coercion would otherwise read null as 0 and lose the defaults.
// A number, a numeric string or null (absent: the default). A union of types, not anyOf: with
// type coercion, anyOf's null branch would turn 0 into null and so a caller's 0 into the default.
const lenientInt = { type: ['integer', 'null'] } as const;
const lenientBool = { type: ['boolean', 'null'] } as const;

export { codeParams, idParams, joinCodeSchema } from '../schemas';

export const playerParams = {
  type: 'object',
  required: ['id', 'subjectId'],
  properties: { id: { type: 'string', maxLength: 64 }, subjectId: { type: 'string' } },
} as const;

export const playerSchema = {
  type: 'object',
  properties: {
    gamespaceId: str,
    subjectId: str,
    subjectName: str,
    permission: str,
    isManager: bool,
  },
} as const;

/** Gamespace (wire reference §2.2): a gamespace in a list. */
export const gamespaceSchema = {
  type: 'object',
  properties: {
    id: str,
    workspaceId: nullableStr,
    managerId: nullableStr,
    managerName: nullableStr,
    audience: nullableStr,
    name: str,
    slug: str,
    isActive: bool,
    players: { type: 'array', items: playerSchema },
    whenCreated: str,
    startTime: str,
    endTime: str,
    expirationTime: str,
  },
} as const;

const vmStateSchema = {
  type: 'object',
  properties: { id: str, name: str, isolationId: str, isRunning: bool, isVisible: bool },
} as const;

/** A machine of the play page's topology diagram (ours): nothing but names. */
const topologyNodeSchema = {
  type: 'object',
  properties: { name: str, networks: { type: 'array', items: str } },
} as const;

/** QuestionView (wire reference §2.3): a question as the player's page and progress show it. */
export const questionViewSchema = {
  type: 'object',
  properties: {
    text: str,
    hint: str,
    answer: str,
    example: str,
    weight: num,
    penalty: num,
    isCorrect: bool,
    isGraded: bool,
  },
} as const;

export const challengeViewSchema = {
  type: ['object', 'null'],
  properties: {
    text: str,
    maxPoints: int,
    maxAttempts: int,
    attempts: int,
    score: num,
    sectionCount: int,
    sectionIndex: int,
    sectionScore: num,
    sectionText: str,
    lastScoreTime: str,
    questions: { type: 'array', items: questionViewSchema },
  },
} as const;

export const gameStateSchema = {
  type: 'object',
  properties: {
    id: nullableStr,
    workspaceId: nullableStr,
    name: str,
    slug: str,
    managerId: nullableStr,
    managerName: nullableStr,
    markdown: str,
    audience: nullableStr,
    launchpointUrl: nullableStr,
    players: { type: 'array', items: playerSchema },
    whenCreated: str,
    startTime: str,
    endTime: str,
    expirationTime: str,
    isActive: bool,
    vms: { type: 'array', items: vmStateSchema },
    challenge: challengeViewSchema,
    variant: int,
    // Ours (not the reference's): the topology diagram's machines, their names and networks only.
    topology: { type: 'array', items: topologyNodeSchema },
    // Ours (not the reference's): whether the caller may manage the gamespace (gs.CanManage).
    canManage: bool,
  },
} as const;

export const registrationBody = {
  type: 'object',
  required: ['resourceId'],
  properties: {
    resourceId: { type: 'string', maxLength: 64 },
    graderKey: nullableStr,
    graderUrl: nullableStr,
    variant: lenientInt,
    playerCount: lenientInt,
    maxAttempts: lenientInt,
    maxMinutes: lenientInt,
    points: lenientInt,
    allowReset: lenientBool,
    allowPreview: lenientBool,
    startGamespace: lenientBool,
    expirationTime: nullableStr,
    players: {
      type: ['array', 'null'],
      items: {
        type: 'object',
        properties: { subjectId: nullableStr, subjectName: nullableStr },
      },
    },
  },
} as const;

export const changedGamespaceBody = {
  type: 'object',
  required: ['id'],
  properties: { id: str, expirationTime: nullableStr },
} as const;

export const enlisteeBody = {
  type: 'object',
  properties: { subjectName: nullableStr, code: nullableStr, name: nullableStr },
} as const;

export const enlistmentSchema = {
  type: 'object',
  properties: { gamespaceId: str, token: str },
} as const;
