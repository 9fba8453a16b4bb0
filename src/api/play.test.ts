import * as E from 'fp-ts/Either';
import { describe, expect, it } from 'vitest';
import { recordingClient } from './testing/recordingClient';
import { INVALID_RESPONSE_MESSAGE } from './http';
import {
  changeGamespace,
  deleteGamespace,
  getGamespace,
  getProgress,
  gradeSection,
  inviteToGamespace,
  joinPlayer,
  registerGamespace,
} from './play';

const client = recordingClient;

const signal = () => new AbortController().signal;

const state = {
  id: 'gs1',
  name: 'Lab',
  slug: 'lab',
  isActive: true,
  startTime: '2030-01-01T00:00:00+00:00',
  endTime: '0001-01-01T00:00:00+00:00',
  expirationTime: '2030-01-01T01:00:00+00:00',
  vms: [{ id: 'vm1', name: 'web', isRunning: true }],
  challenge: { score: 0, maxPoints: 100, attempts: 0, maxAttempts: 3 },
};

describe('play calls', () => {
  it('register posts the launch settings and reads the game state', async () => {
    const { http, calls } = client(200, state);
    const settings = {
      resourceId: 'ws1',
      variant: 0,
      maxAttempts: 3,
      maxMinutes: 60,
      points: 100,
      allowReset: true,
      allowPreview: false,
      startGamespace: true,
    };
    const result = await registerGamespace(http)(settings, signal())();
    expect(calls).toEqual([{ method: 'POST', url: '/api/gamespace', body: settings }]);
    expect(result).toEqual(E.right(state));
  });

  it('load, change and delete a gamespace by id', async () => {
    const { http, calls } = client(200, state);
    await getGamespace(http)('g 1', signal())();
    await changeGamespace(http)({ id: 'g1', action: 'start' }, signal())();
    await changeGamespace(http)({ id: 'g1', action: 'stop' }, signal())();
    await changeGamespace(http)({ id: 'g1', action: 'complete' }, signal())();
    await deleteGamespace(http)('g1', signal())();
    expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual([
      'GET /api/gamespace/g%201',
      'POST /api/gamespace/g1/start',
      'POST /api/gamespace/g1/stop',
      'POST /api/gamespace/g1/complete',
      'DELETE /api/gamespace/g1',
    ]);
  });

  it('extend puts the new expiration, then reads the state it leaves', async () => {
    const { http, calls } = client(200, { ...state, canManage: true });
    const expirationTime = '2030-01-01T01:15:00.000Z';
    const result = await changeGamespace(http)(
      { id: 'g1', action: 'extend', expirationTime },
      signal(),
    )();
    expect(calls).toEqual([
      { method: 'PUT', url: '/api/gamespace', body: { id: 'g1', expirationTime } },
      { method: 'GET', url: '/api/gamespace/g1', body: undefined },
    ]);
    expect(result).toEqual(E.right({ ...state, canManage: true }));
  });

  it('read the preview-like state with a null id', async () => {
    const { http } = client(200, { id: null, name: 'Lab', markdown: '# Lab' });
    expect(await getGamespace(http)('ws1', signal())()).toEqual(
      E.right({ id: null, name: 'Lab', markdown: '# Lab' }),
    );
  });

  it('invite answers the code and joinPlayer posts it', async () => {
    const invite = client(200, { id: 'gs1', code: 'c0de' });
    expect(await inviteToGamespace(invite.http)('gs1', signal())()).toEqual(
      E.right({ id: 'gs1', code: 'c0de' }),
    );
    expect(invite.calls[0]).toMatchObject({ method: 'POST', url: '/api/gamespace/gs1/invite' });
    const join = client(200, undefined);
    expect(E.isRight(await joinPlayer(join.http)('c0de', signal())())).toBe(true);
    expect(join.calls).toEqual([{ method: 'POST', url: '/api/player/c0de', body: {} }]);
  });

  it('progress and grade use the challenge routes', async () => {
    const progress = {
      id: 'gs1',
      variant: {
        sections: [{ name: 'One', questions: [{ text: 'Q', weight: 1 }] }],
        totalSectionCount: 2,
      },
      nextSectionPreReqThisSection: 0.5,
    };
    const p = client(200, progress);
    expect(await getProgress(p.http)('gs1', signal())()).toEqual(E.right(progress));
    expect(p.calls[0]?.url).toBe('/api/gamespace/gs1/challenge/progress');
    const g = client(200, state);
    const submission = { id: 'gs1', sectionIndex: 0, questions: [{ answer: '42' }] };
    await gradeSection(g.http)(submission, signal())();
    expect(g.calls).toEqual([{ method: 'POST', url: '/api/gamespace/grade', body: submission }]);
  });

  it('report the server message of a failed grade and a malformed state', async () => {
    const failed = client(400, { message: 'AttemptLimitReached' });
    expect(
      await gradeSection(failed.http)({ id: 'g', sectionIndex: 0, questions: [] }, signal())(),
    ).toEqual(E.left({ status: 400, message: 'AttemptLimitReached' }));
    const malformed = client(200, { vms: 'none' });
    expect(await getGamespace(malformed.http)('g', signal())()).toEqual(
      E.left({ status: 200, message: INVALID_RESPONSE_MESSAGE }),
    );
  });
  it("read the topology's machines and their networks, and refuse one malformed", async () => {
    const topology = [
      { name: 'gw', networks: ['lan', 'dmz'] },
      { name: 'web', networks: ['dmz'] },
    ];
    const drawn = client(200, { ...state, topology });
    expect(await getGamespace(drawn.http)('g', signal())()).toEqual(
      E.right({ ...state, topology }),
    );
    const malformed = client(200, { ...state, topology: [{ name: 'gw', networks: 'lan dmz' }] });
    expect(await getGamespace(malformed.http)('g', signal())()).toEqual(
      E.left({ status: 200, message: INVALID_RESPONSE_MESSAGE }),
    );
  });
});
