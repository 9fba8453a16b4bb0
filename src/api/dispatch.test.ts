import * as E from 'fp-ts/Either';
import { describe, expect, it } from 'vitest';
import { createHttpClient } from './http';
import { listDispatches } from './dispatch';

const signal = () => new AbortController().signal;

/** A client answering each path as `routes` says (404 for the others). */
function client(routes: Record<string, unknown>) {
  const asked: string[] = [];
  const http = createHttpClient({
    baseUrl: '/api',
    authorization: () => 'Bearer t',
    fetch: (async (url: string) => {
      asked.push(url);
      const path = url.split('?')[0]!;
      return path in routes
        ? new Response(JSON.stringify(routes[path]), { status: 200 })
        : new Response(JSON.stringify({ message: 'Not Found' }), { status: 404 });
    }) as unknown as typeof fetch,
  });
  return { http, asked };
}

const entry = { id: 'd-1', trigger: 'hostname', targetName: 'vm1' };
const agents = [{ name: 'vm1', isMachine: true, agents: 1 }];

describe('dispatch calls', () => {
  it('load the log and, beside it, which machines have an agent listening', async () => {
    const { http, asked } = client({
      '/api/dispatches': [entry],
      '/api/dispatches/agents': agents,
    });
    expect(await listDispatches(http)('gs 1', signal())()).toEqual(
      E.right({ entries: [entry], agents }),
    );
    expect(asked.sort()).toEqual(['/api/dispatches/agents?gs=gs%201', '/api/dispatches?gs=gs%201']);
  });

  it('still load the log from a server that cannot say who listens (the reference)', async () => {
    const { http } = client({ '/api/dispatches': [entry] });
    expect(await listDispatches(http)('gs-1', signal())()).toEqual(
      E.right({ entries: [entry], agents: null }),
    );
  });
});
