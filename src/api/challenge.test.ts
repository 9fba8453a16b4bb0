import * as E from 'fp-ts/Either';
import { describe, expect, it } from 'vitest';
import { recordingClient } from './testing/recordingClient';
import { emptyChallengeSpec } from '../domain/challenge';
import { getChallenge, saveChallenge } from './challenge';
import { INVALID_RESPONSE_MESSAGE } from './http';

const client = recordingClient;

const signal = () => new AbortController().signal;

describe('challenge calls', () => {
  it('load the spec with every default filled in', async () => {
    const { http, calls } = client(200, {
      text: 'Find it',
      variants: [{ sections: [{ name: '', questions: [{ text: 'Q', grader: 'MatchAny' }] }] }],
    });
    const result = await getChallenge(http)('ws 1', signal())();
    expect(calls).toEqual([{ method: 'GET', url: '/api/challenge/ws%201', body: undefined }]);
    expect(E.isRight(result)).toBe(true);
    const spec = E.isRight(result) ? result.right : emptyChallengeSpec();
    expect(spec.text).toBe('Find it');
    expect(spec.transforms).toEqual([]);
    expect(spec.variants[0]?.sections[0]?.name).toBeNull();
    expect(spec.variants[0]?.sections[0]?.questions[0]).toMatchObject({
      text: 'Q',
      answer: '',
      grader: 'matchAny',
      hidden: false,
    });
  });

  it('report a response that is not a spec as an invalid response', async () => {
    for (const body of [
      { variants: 'many' },
      { variants: [{ sections: [{ questions: [{ grader: 'fuzzy' }] }] }] },
    ]) {
      const { http } = client(200, body);
      expect(await getChallenge(http)('ws-1', signal())()).toEqual(
        E.left({ status: 200, message: INVALID_RESPONSE_MESSAGE }),
      );
    }
  });

  it('pass on the server refusal', async () => {
    const { http } = client(403, undefined);
    const result = await getChallenge(http)('ws-1', signal())();
    expect(result).toEqual(E.left({ status: 403, message: 'ActionForbidden' }));
  });

  it('save the spec with PUT challenge/{id}', async () => {
    const { http, calls } = client(200, undefined);
    const spec = { ...emptyChallengeSpec(), text: 'New text' };
    const result = await saveChallenge(http)({ workspaceId: 'ws-1', spec }, signal())();
    expect(E.isRight(result)).toBe(true);
    expect(calls).toEqual([{ method: 'PUT', url: '/api/challenge/ws-1', body: spec }]);
  });
});
