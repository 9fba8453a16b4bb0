// Schemas of the results routes (ours): a gamespace's result as the results table, its CSV and a
// player's history read it.

const str = { type: 'string' } as const;
const int = { type: 'integer' } as const;
const num = { type: 'number' } as const;
const bool = { type: 'boolean' } as const;
const date = {
  type: 'string',
  description: 'ISO 8601; 0001-01-01T00:00:00+00:00 when unset.',
} as const;

export const gameResultSchema = {
  type: 'object',
  required: [
    'gamespaceId',
    'workspaceId',
    'name',
    'managerId',
    'managerName',
    'players',
    'isTeam',
    'whenCreated',
    'startTime',
    'endTime',
    'expirationTime',
    'secondsUsed',
    'isRunning',
    'score',
    'maxPoints',
    'questionSets',
    'attempts',
    'maxAttempts',
  ],
  properties: {
    gamespaceId: str,
    workspaceId: { type: ['string', 'null'] },
    name: { type: 'string', description: "The workspace's name when the gamespace was launched." },
    managerId: str,
    managerName: str,
    players: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'name', 'isManager'],
        properties: { id: str, name: str, isManager: bool },
      },
    },
    isTeam: { type: 'boolean', description: 'More than one player.' },
    whenCreated: date,
    startTime: date,
    endTime: {
      ...date,
      description: 'When it ended, or its expiration once passed; unset while it runs.',
    },
    expirationTime: date,
    secondsUsed: { type: 'integer', description: 'From the start to the end, or to now.' },
    isRunning: { type: 'boolean', description: 'Started, not ended, not out of time.' },
    score: { type: 'number', description: 'In points.' },
    maxPoints: num,
    questionSets: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'score', 'maxScore', 'attempts'],
        properties: { name: str, score: num, maxScore: num, attempts: int },
      },
    },
    attempts: { type: 'integer', description: 'Submissions over every question set.' },
    maxAttempts: { type: 'integer', description: 'Per question set; 0 is no limit.' },
  },
} as const;

export const workspaceResultsSchema = {
  type: 'object',
  required: ['workspaceId', 'workspaceName', 'now', 'games'],
  properties: {
    workspaceId: str,
    workspaceName: str,
    now: { type: 'string', description: 'When the answer was made (time used runs to it).' },
    games: { type: 'array', items: gameResultSchema },
  },
} as const;

export const csvResponse = {
  description:
    'One row per gamespace, a header first; text that starts with = + - @ is kept as text.',
  content: { 'text/csv': { schema: { type: 'string' } } },
} as const;
