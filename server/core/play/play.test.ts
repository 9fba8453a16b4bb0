import { describe, expect, it } from 'vitest';
import type { TemplateTable } from '../../store/schema';
import { seededRandom } from '../../../src/domain/testing/property';
import {
  challengeIso,
  gamespaceTemplates,
  replicaNames,
  REPLICA_LIMIT,
  templatesOfVariant,
} from './deploy';
import { DEFAULT_GAMESPACE_MINUTES } from '../../../src/domain/gameLength';
import { chooseVariant, cloneChallenge, expirationOf, maxDuration } from './registration';

const MINUTE = 60_000;

describe('registration rules', () => {
  it('takes the actor cap, else the workspace duration, else the default', () => {
    expect(maxDuration(30, 90)).toBe(30);
    expect(maxDuration(0, 90)).toBe(90);
    expect(maxDuration(0, 0)).toBe(DEFAULT_GAMESPACE_MINUTES);
  });

  it('caps the requested minutes and expiration time by the maximum', () => {
    const now = 1_000_000;
    expect(expirationOf(now, 60, { maxMinutes: 0, expirationTime: 0 })).toBe(now + 60 * MINUTE);
    expect(expirationOf(now, 60, { maxMinutes: 20, expirationTime: 0 })).toBe(now + 20 * MINUTE);
    expect(expirationOf(now, 60, { maxMinutes: 90, expirationTime: 0 })).toBe(now + 60 * MINUTE);
    expect(expirationOf(now, 60, { maxMinutes: 0, expirationTime: now + 5 * MINUTE })).toBe(
      now + 5 * MINUTE,
    );
    expect(expirationOf(now, 60, { maxMinutes: 0, expirationTime: now + 500 * MINUTE })).toBe(
      now + 60 * MINUTE,
    );
  });

  it('chooses the 1-based variant, clamped, or a random one for 0', () => {
    const random = seededRandom(7);
    expect(chooseVariant(2, 3, random)).toBe(1);
    expect(chooseVariant(9, 3, random)).toBe(2);
    expect(chooseVariant(1, 0, random)).toBe(0);
    const picks = new Set(Array.from({ length: 50 }, () => chooseVariant(0, 3, random)));
    expect([...picks].sort()).toEqual([0, 1, 2]);
  });

  it('substitutes resolved transforms in the whole challenge, JSON-escaped', () => {
    const workspace = JSON.stringify({
      text: 'Key ##quote##',
      transforms: [
        { key: 'quote', value: 'list:1:a"b' },
        { key: 'who', value: 'id' },
      ],
      variants: [
        {
          text: 'For ##who##',
          sections: [{ questions: [{ text: 'q', answer: '##who##', weight: 0 }] }],
        },
      ],
    });
    const copy = cloneChallenge(workspace, {
      requestedVariant: 0,
      maxPoints: 50,
      maxAttempts: 0,
      context: { gamespaceId: 'gs1', graderUrl: 'http://x/api/gamespace/grade', graderKey: 'k' },
      random: seededRandom(1),
    });
    const spec = JSON.parse(copy.text);
    expect(spec.text).toBe('Key a"b');
    expect(spec.variants[0].text).toBe('For gs1');
    expect(spec.challenge.sections[0].questions[0]).toMatchObject({ answer: 'gs1', weight: 1 });
    expect(spec).toMatchObject({ maxPoints: 50, maxAttempts: 0 });
  });
});

const template = (overrides: Partial<TemplateTable>): TemplateTable & { parentDetail: null } => ({
  id: 't',
  name: 'box',
  description: '',
  audience: '',
  iso: '',
  networks: 'lan',
  guestinfo: '',
  isHidden: 0,
  isPublished: 0,
  isLinked: 0,
  detail: null,
  parentId: null,
  replicas: 1,
  variant: 0,
  workspaceId: 'ws',
  whenCreated: 0,
  parentDetail: null,
  ...overrides,
});

describe('deploy rules', () => {
  it('keeps templates of every variant and of the chosen one, suffix removed', () => {
    const names = templatesOfVariant(
      [
        template({ name: 'a' }),
        template({ name: 'b_v1', variant: 1 }),
        template({ name: 'b_v2', variant: 2 }),
      ],
      1,
    ).map((t) => t.name);
    expect(names).toEqual(['a', 'b']);
  });

  it('names replicas, one per player for -1, at most the limit', () => {
    expect(replicaNames('pc', 1, 4)).toEqual(['pc']);
    expect(replicaNames('pc', 0, 4)).toEqual(['pc']);
    expect(replicaNames('pc', 3, 1)).toEqual(['pc_1', 'pc_2', 'pc_3']);
    expect(replicaNames('pc', -1, 2)).toEqual(['pc_1', 'pc_2']);
    expect(replicaNames('pc', 99, 1)).toHaveLength(REPLICA_LIMIT);
    expect(replicaNames('pc', -1, 40)).toHaveLength(REPLICA_LIMIT);
  });

  it('mounts the challenge ISO on its targets that have none', () => {
    const iso = { file: 'c.iso', targets: 'Kali web' };
    expect(challengeIso({ name: 'kali', iso: '' }, iso)).toBe('c.iso');
    expect(challengeIso({ name: 'kali', iso: 'own.iso' }, iso)).toBe('own.iso');
    expect(challengeIso({ name: 'db', iso: '' }, iso)).toBe('');
    expect(challengeIso({ name: 'kali', iso: '' }, null)).toBe('');
  });

  it('builds machine templates with the gamespace tag and substituted guest settings', () => {
    const templates = gamespaceTemplates(
      { id: 'gs1', variant: 0, playerCount: 2 },
      { hostAffinity: 0, useUplinkSwitch: 0 },
      [template({ name: 'kali', replicas: -1, guestinfo: 'flag=##flag##;#skip=1' })],
      {
        transforms: [{ key: 'flag', value: 'abc123' }],
        challenge: {
          text: '',
          sections: [],
          iso: { file: 'c.iso', targets: 'kali', downloadable: false, manifest: [] },
        },
      },
    );
    expect(templates.map((t) => [t.Name, t.IsolationTag, t.Iso])).toEqual([
      ['kali_1', 'gs1', 'c.iso'],
      ['kali_2', 'gs1', 'c.iso'],
    ]);
    expect(templates[0]!.GuestSettings).toContainEqual({ Key: 'guestinfo.flag', Value: 'abc123' });
  });

  it('gives every machine of a gamespace a name of its own, numbering the later of two alike', () => {
    const names = gamespaceTemplates(
      { id: 'gs1', variant: 0, playerCount: 1 },
      { hostAffinity: 0, useUplinkSwitch: 0 },
      [
        template({ name: 'web' }),
        template({ name: 'web_v1', variant: 1 }),
        template({ name: 'router' }),
        template({ name: 'Router' }),
      ],
      { transforms: [], challenge: null },
    ).map((t) => t.Name);
    expect(names).toEqual(['web', 'web-2', 'router', 'Router-2']);
  });
});
