import {
  emptyChallengeSpec,
  newQuestion,
  newSection,
  type ChallengeSpec,
  type QuestionSpec,
  type VariantSpec,
} from '../../src/domain/challenge';
import { newApiKey, newId, sha256Hex } from '../../server/core/ids';
import type { Db } from '../../server/store/db';
import type { GamespaceTable } from '../../server/store/schema';

// Gamespaces written straight to the store, as registration leaves them: the challenge column
// holds the spec with `challenge` = the selected variant, weights already fractions of 1.

const q = (fields: Partial<QuestionSpec>): QuestionSpec => ({ ...newQuestion(), ...fields });

/** Two question sets; the second opens once half the weight is scored. */
export function twoSetVariant(): VariantSpec {
  return {
    text: 'Variant one',
    iso: null,
    sections: [
      {
        ...newSection(),
        name: 'Recon',
        questions: [
          q({ text: 'First word?', answer: 'alpha', weight: 0.25 }),
          q({ text: 'A colour?', answer: 'red|blue', grader: 'matchAny', weight: 0.25 }),
        ],
      },
      {
        ...newSection(),
        name: 'Exploit',
        preReqTotal: 0.5,
        questions: [q({ text: 'Both letters?', answer: 'x|y', grader: 'matchAll', weight: 0.5 })],
      },
    ],
  };
}

export function gamespaceSpec(fields: Partial<ChallengeSpec> = {}): ChallengeSpec {
  const variant = twoSetVariant();
  return {
    ...emptyChallengeSpec(),
    text: 'Find the flags.',
    maxPoints: 100,
    maxAttempts: 3,
    variants: [variant],
    challenge: variant,
    ...fields,
  };
}

export async function insertWorkspace(db: Db, audience: string, challenge: ChallengeSpec) {
  const id = newId();
  const now = Date.now();
  await db
    .insertInto('workspaces')
    .values({
      id,
      name: `Lab ${audience}`,
      description: '',
      tags: '',
      author: 'author',
      audience,
      shareCode: '',
      templateScope: '',
      isPublished: 1,
      templateLimit: 3,
      hostAffinity: 0,
      useUplinkSwitch: 0,
      durationMinutes: 60,
      launchCount: 0,
      lastActivity: now,
      challenge: JSON.stringify(challenge),
      whenCreated: now,
    })
    .execute();
  return id;
}

export interface InsertedGamespace {
  id: string;
  /** The grader key in plain text (the row holds its hash). */
  graderKey: string;
}

/** A started gamespace managed by `managerId`, who is also its Manager player. */
export async function insertGamespace(
  db: Db,
  options: {
    workspaceId: string | null;
    managerId: string;
    spec?: ChallengeSpec;
    row?: Partial<GamespaceTable>;
  },
): Promise<InsertedGamespace> {
  const id = newId();
  const graderKey = newApiKey();
  const now = Date.now();
  await db
    .insertInto('gamespaces')
    .values({
      id,
      name: 'Lab',
      managerId: options.managerId,
      managerName: 'Manager',
      graderKey: sha256Hex(graderKey),
      whenCreated: now,
      startTime: now,
      endTime: 0,
      expirationTime: now + 3_600_000,
      cleanupGraceMinutes: 0,
      cleaned: 0,
      allowReset: 1,
      challenge: JSON.stringify(options.spec ?? gamespaceSpec()),
      workspaceId: options.workspaceId,
      variant: 0,
      playerCount: 1,
      ...options.row,
    })
    .execute();
  await db
    .insertInto('players')
    .values({
      subjectId: options.managerId,
      gamespaceId: id,
      subjectName: 'Manager',
      permission: 255,
    })
    .execute();
  return { id, graderKey };
}

export async function storedSpec(db: Db, id: string): Promise<ChallengeSpec> {
  const row = await db
    .selectFrom('gamespaces')
    .select('challenge')
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  return JSON.parse(row.challenge) as ChallengeSpec;
}
