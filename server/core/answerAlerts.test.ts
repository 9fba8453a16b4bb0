import { describe, expect, it } from 'vitest';
import {
  emptyChallengeSpec,
  newQuestion,
  newSection,
  type ChallengeSpec,
} from '../../src/domain/challenge';
import { realClock } from '../clock';
import type { AlertTable } from '../store/schema';
import { createAnswerAlerts } from './answerAlerts';
import type { NewGameEvent } from './gameEvents';
import { NO_GAME_EVENTS } from './gameEventLog';

// The alert check against a workspace of many gamespaces, with the store faked at the
// repository boundary so that what it reads can be counted.

const WORKSPACE = 'w'.repeat(32);

const specWith = (flag: string, graded = false): ChallengeSpec => {
  const variant = {
    text: '',
    iso: null,
    sections: [
      {
        ...newSection(),
        name: 'Recon',
        questions: [
          { ...newQuestion(), text: 'The flag?', answer: flag, weight: 1, isGraded: graded },
        ],
      },
    ],
  };
  return { ...emptyChallengeSpec(), variants: [variant], challenge: variant };
};

function setup(count: number) {
  const challenges = new Map<string, string>();
  for (let i = 0; i < count; i++) {
    challenges.set(`gs-${i}`, JSON.stringify(specWith(`flag{${i.toString(16).padStart(8, '0')}}`)));
  }
  const reads = { ids: 0, challenges: [] as number[] };
  const stored: AlertTable[] = [];
  const recorded: NewGameEvent[] = [];
  const alerts = createAnswerAlerts({
    repositories: {
      alerts: {
        append: async (row) => void stored.push(row),
        list: async () => [],
        countsOf: async () => new Map(),
        async gamespacesPlaying(_workspaceId, _variant, exceptId) {
          reads.ids += 1;
          return [...challenges.keys()].filter((id) => id !== exceptId);
        },
        async challengesOf(ids) {
          reads.challenges.push(ids.length);
          return ids.map((id) => ({ id, challenge: challenges.get(id)! }));
        },
      },
      players: {
        namesIn: async (ids: readonly string[]) => new Map(ids.map((id) => [id, [`Team ${id}`]])),
      } as never,
    },
    gameEvents: { ...NO_GAME_EVENTS, record: async (event) => void recorded.push(event) },
    clock: realClock,
    log: { warn: () => {} },
    mayRead: async () => true,
  });
  const submit = (by: string, answer: string) =>
    alerts.submitted({
      gamespace: { id: by, workspaceId: WORKSPACE, variant: 0, managerName: '' },
      actor: { id: 'p', name: 'Player' },
      spec: specWith(
        JSON.parse(challenges.get(by)!).challenge.sections[0].questions[0].answer,
        true,
      ),
      sectionIndex: 0,
      answers: [{ answer }],
    });
  return { alerts, challenges, reads, stored, recorded, submit };
}

describe('answer-sharing alerts among 500 gamespaces', () => {
  it("reads each gamespace's answers once, then only the workspace's ids per check", async () => {
    const s = setup(500);
    await s.submit('gs-1', 'flag{00000007}');
    // In chunks of 50, so that other requests go on between them.
    expect(s.reads).toEqual({ ids: 1, challenges: [...Array(9).fill(50), 49] });
    expect(s.stored).toMatchObject([
      { kind: 'shared', gamespaceId: 'gs-1', otherGamespaceId: 'gs-7', ownerNames: 'Team gs-7' },
    ]);
    expect(s.recorded).toMatchObject([
      {
        gamespaceId: 'gs-1',
        kind: 'alert',
        detail:
          'Team gs-1 submitted the answer generated for Team gs-7 — Question 1 of Set 1 (Recon)',
      },
    ]);
    // Another gamespace's check reads only the one it had not read (the first submitter).
    await s.submit('gs-2', 'FLAG{000001F3}');
    expect(s.reads).toEqual({ ids: 2, challenges: [...Array(9).fill(50), 49, 1] });
    expect(s.stored.at(-1)).toMatchObject({ gamespaceId: 'gs-2', otherGamespaceId: 'gs-499' });
    // A wrong answer that is nobody's, and the submitter's own: no alert, nothing read again.
    await s.submit('gs-3', 'flag{ffffffff}');
    await s.submit('gs-4', 'flag{00000004}');
    expect(s.stored).toHaveLength(2);
    expect(s.reads.challenges).toHaveLength(11);
  });

  it('reads again the answers of a gamespace it was told to forget', async () => {
    const s = setup(3);
    await s.submit('gs-0', 'nothing');
    s.challenges.set('gs-1', JSON.stringify(specWith('flag{regraded}')));
    s.alerts.forget('gs-1');
    await s.submit('gs-0', 'flag{regraded}');
    expect(s.reads.challenges).toEqual([2, 1]);
    expect(s.stored).toMatchObject([{ otherGamespaceId: 'gs-1' }]);
  });
});
