import { describe, expect, it } from 'vitest';
import { createActor, waitFor } from 'xstate';
import { createHttpClient } from '../api/http';
import { selectLaunchSignInStatus } from '../machines/launchSignInMachine.selectors';
import { launchSignInLogic } from './launchImplementations';

interface Sent {
  url: string;
  method: string;
  headers: Record<string, string>;
}

/** A server that answers POST user/login: 200 for the tickets it knows (once), 401 otherwise. */
function fakeServer(tickets: Set<string>, cookie: boolean) {
  const sent: Sent[] = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const headers = (init?.headers ?? {}) as Record<string, string>;
    sent.push({ url: String(input), method: init?.method ?? 'GET', headers });
    const ticket = /^Ticket (.+)$/.exec(headers.Authorization ?? '')?.[1];
    const taken = ticket ? tickets.delete(ticket) : !headers.Authorization && cookie;
    return new Response('', { status: taken ? 200 : 401 });
  };
  return { sent, fetch };
}

// The launch pages' client signs in as the ticket's player, never as a session of ours.
const http = (fetch: typeof globalThis.fetch) =>
  createHttpClient({ baseUrl: '/api', authorization: () => undefined, fetch });

describe('launchSignInLogic', () => {
  it('sends the ticket as `Authorization: Ticket`, with the CSRF header, and only once', async () => {
    const server = fakeServer(new Set(['tk-1']), false);
    const forgotten: Array<string | null> = [];
    const logic = launchSignInLogic(http(server.fetch), (g) => forgotten.push(g));
    const input = { ticket: 'tk-1', code: null, gamespaceId: 'g-1' };
    // React's strict effects start the page's actor twice at once: both share the one call.
    const first = createActor(logic, { input }).start();
    first.stop();
    const second = createActor(logic, { input }).start();
    await waitFor(second, (s) => selectLaunchSignInStatus(s) !== 'busy');
    expect(selectLaunchSignInStatus(second.getSnapshot())).toBe('signedIn');
    expect(server.sent).toEqual([
      {
        url: '/api/user/login',
        method: 'POST',
        headers: expect.objectContaining({
          Authorization: 'Ticket tk-1',
          'X-Requested-With': 'XMLHttpRequest',
        }) as Record<string, string>,
      },
    ]);
    expect(forgotten).toEqual(['g-1']);
  });

  it('tries the cookie without any Authorization header when the ticket is refused', async () => {
    const server = fakeServer(new Set(), true);
    const actor = createActor(
      launchSignInLogic(http(server.fetch), () => undefined),
      {
        input: { ticket: 'tk-used', code: null, gamespaceId: 'g-1' },
      },
    ).start();
    await waitFor(actor, (s) => selectLaunchSignInStatus(s) !== 'busy');
    expect(selectLaunchSignInStatus(actor.getSnapshot())).toBe('signedIn');
    expect(server.sent.map((s) => s.headers.Authorization)).toEqual(['Ticket tk-used', undefined]);
  });

  it('is refused when neither the ticket nor a cookie is taken', async () => {
    const server = fakeServer(new Set(), false);
    const actor = createActor(
      launchSignInLogic(http(server.fetch), () => undefined),
      {
        input: { ticket: 'tk-used', code: null, gamespaceId: 'g-1' },
      },
    ).start();
    await waitFor(actor, (s) => selectLaunchSignInStatus(s) !== 'busy');
    expect(selectLaunchSignInStatus(actor.getSnapshot())).toBe('refused');
  });
});
