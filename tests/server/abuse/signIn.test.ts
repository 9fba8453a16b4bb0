import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { SIGN_IN_FIRST_DELAY_MS } from '../../../server/http/rateLimit';
import { SEED_PASSWORD, startTestServer, type TestServer } from '../harness';
import { signIn } from '../oidc';
import { INVALID, SignInBrowser, TOO_MANY } from './browser';

// Password guessing against the embedded provider's login form: past a few failed sign-ins, each
// next try from that address must wait twice as long (429 with Retry-After), per account and
// per address, and the account's owner, elsewhere, is never kept out.

describe('sign-in throttle', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer({
      env: {
        TRUST_PROXY: 'true',
        SIGNIN_FREE_FAILURES: '2',
        SIGNIN_ADDRESS_FAILURES: '4',
      },
    });
  });
  afterAll(async () => {
    await server?.close();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('makes each try past the free failures wait twice as long as the one before', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const browser = new SignInBrowser(server.url, '198.51.100.1');
    const form = await browser.openLoginForm();
    for (let i = 0; i < 3; i++) {
      const failed = await browser.submit(form, 'creator', 'wrong');
      expect(failed.status).toBe(200);
      expect(failed.text).toContain(INVALID);
    }
    // Three failures, two of them free: the next try waits one delay, then two, then four.
    for (const delay of [1, 2, 4].map((n) => n * SIGN_IN_FIRST_DELAY_MS)) {
      const refused = await browser.submit(form, 'creator', SEED_PASSWORD);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe(String(delay / 1000));
      expect(refused.text).toContain(TOO_MANY);
      vi.setSystemTime(Date.now() + delay);
      const failed = await browser.submit(form, 'creator', 'wrong');
      expect(failed.text).toContain(INVALID);
    }
    const refused = await browser.submit(form, 'creator', SEED_PASSWORD);
    expect(refused.headers.get('retry-after')).toBe(String((8 * SIGN_IN_FIRST_DELAY_MS) / 1000));
    // Once the wait is over the right password gets through.
    vi.setSystemTime(Date.now() + 8 * SIGN_IN_FIRST_DELAY_MS);
    const signedIn = await browser.submit(form, 'creator', SEED_PASSWORD);
    expect(signedIn.status).toBe(303);
  });

  it('never keeps the owner of a hammered account out when signing in from elsewhere', async () => {
    const attacker = new SignInBrowser(server.url, '203.0.113.9');
    const form = await attacker.openLoginForm();
    const answers: number[] = [];
    for (let i = 0; i < 4; i++)
      answers.push((await attacker.submit(form, 'player', 'guess')).status);
    expect(answers).toEqual([200, 200, 200, 429]);

    // The owner, from another address, signs in at once.
    const owner = await signIn(server.url, 'player', SEED_PASSWORD);
    expect(owner.accessToken).not.toBe('');
    // The attacker still waits.
    expect((await attacker.submit(form, 'player', SEED_PASSWORD)).status).toBe(429);
  });

  it('delays an address that fails on many accounts, whichever account it tries next', async () => {
    const sprayer = new SignInBrowser(server.url, '192.0.2.44');
    const form = await sprayer.openLoginForm();
    for (const username of ['ann', 'bob', 'cat', 'dan', 'eve']) {
      const failed = await sprayer.submit(form, username, 'Password1');
      expect(failed.text).toContain(INVALID);
    }
    const refused = await sprayer.submit(form, 'admin', SEED_PASSWORD);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });
});
