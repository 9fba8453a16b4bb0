import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INTERACTION_TTL_SECONDS } from '../../../server/identity';
import { SEED_PASSWORD, startTestServer, type TestServer } from '../harness';
import { testEngines } from '../databases';
import { signIn } from '../oidc';
import { authorizeQuery } from './browser';

// Every anonymous GET /identity/auth makes the provider store an interaction (a sign-in in
// progress, about 2.6 KB). Their number and lifetime are bounded, the oldest dropped first.

const MAX_PENDING = 100;
const REQUESTS = 1_000;
const PARALLEL = 10;

describe.each(testEngines())('what anonymous sign-in requests can store, on %s', (engine) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      engine,
      env: { IDENTITY_PENDING_SIGNINS: String(MAX_PENDING) },
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  const rows = async () =>
    (
      await server.app.store.db
        .selectFrom('identityPayloads')
        .select(['model', (eb) => eb.fn.countAll<number>().as('n')])
        .groupBy('model')
        .execute()
    ).reduce<Record<string, number>>((all, row) => ({ ...all, [row.model]: Number(row.n) }), {});

  it('keeps a bounded number of short-lived interactions after 1,000 anonymous requests, and sign-in still works', async () => {
    let sent = 0;
    const statuses = new Set<number>();
    await Promise.all(
      Array.from({ length: PARALLEL }, async () => {
        while (sent < REQUESTS) {
          sent++;
          const res = await fetch(`${server.url}/identity/auth?${authorizeQuery(server.url)}`, {
            redirect: 'manual',
          });
          statuses.add(res.status);
          await res.arrayBuffer();
        }
      }),
    );
    expect([...statuses]).toEqual([303]);

    const stored = await rows();
    // The cap, plus the writes between two trims (a tenth of it).
    expect(stored.Interaction).toBeLessThanOrEqual(MAX_PENDING * 1.1);
    expect(Object.values(stored).reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(MAX_PENDING * 1.1);
    const latest = await server.app.store.db
      .selectFrom('identityPayloads')
      .select((eb) => eb.fn.max('expiresAt').as('expiresAt'))
      .where('model', '=', 'Interaction')
      .executeTakeFirstOrThrow();
    expect(Number(latest.expiresAt)).toBeLessThanOrEqual(
      Date.now() + INTERACTION_TTL_SECONDS * 1000,
    );

    const { accessToken } = await signIn(server.url, 'player', SEED_PASSWORD);
    expect(accessToken).not.toBe('');
  });
});
