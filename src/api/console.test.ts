import * as E from 'fp-ts/Either';
import { describe, expect, it } from 'vitest';
import { changeVmNet, getVmConsole, getVmNets, pingConsole, signInConsole } from './console';
import { createHttpClient, INVALID_RESPONSE_MESSAGE } from './http';

/** A client whose fetch records each request and answers `body` with `status`. */
function client(status: number, body: unknown) {
  const calls: Array<{ method: string; url: string; body: unknown; auth: string | null }> = [];
  const http = createHttpClient({
    baseUrl: '/api',
    authorization: () => 'Bearer t',
    fetch: (async (url: string, init: RequestInit) => {
      calls.push({
        method: String(init.method),
        url,
        body: init.body === undefined ? undefined : JSON.parse(String(init.body)),
        auth: new Headers(init.headers).get('Authorization'),
      });
      return new Response(body === undefined ? '' : JSON.stringify(body), { status });
    }) as unknown as typeof fetch,
  });
  return { http, calls };
}

const signal = () => new AbortController().signal;

describe('console calls', () => {
  it('signs in with the bearer token to get the console cookie', async () => {
    const { http, calls } = client(200, undefined);
    expect(E.isRight(await signInConsole(http)(signal())())).toBe(true);
    expect(calls).toEqual([
      { method: 'POST', url: '/api/user/login', body: undefined, auth: 'Bearer t' },
    ]);
  });

  it('pings with the cookie alone', async () => {
    const { http, calls } = client(200, undefined);
    await pingConsole(http)(signal())();
    expect(calls[0]).toMatchObject({ method: 'GET', url: '/api/user/ping', auth: null });
  });

  it('reads the console of a machine', async () => {
    const dto = {
      id: 'vm-1',
      isolationId: 'ws-1',
      name: 'web',
      url: 'ws://h/x',
      ticket: 'abc',
      isRunning: true,
    };
    const { http, calls } = client(200, dto);
    expect(await getVmConsole(http)('vm-1', signal())()).toEqual(E.right(dto));
    expect(calls[0]?.url).toBe('/api/vm-console/vm-1');
  });

  it('reports a console answer of the wrong shape as an invalid response', async () => {
    const { http } = client(200, { id: 'vm-1' });
    expect(await getVmConsole(http)('vm-1', signal())()).toEqual(
      E.left({ status: 200, message: INVALID_RESPONSE_MESSAGE }),
    );
  });

  it('lists the networks and moves a NIC with {net}:{index}', async () => {
    const nets = client(200, { iso: null, net: ['bridge-net', 'lan#ws-1'] });
    expect(await getVmNets(nets.http)('vm-1', signal())()).toEqual(
      E.right({ iso: null, net: ['bridge-net', 'lan#ws-1'] }),
    );
    expect(nets.calls[0]?.url).toBe('/api/vm/vm-1/nets');

    const change = client(200, { id: 'vm-1', name: 'web#ws-1' });
    await changeVmNet(change.http)({ vmId: 'vm-1', nic: 1, net: 'lan#ws-1' }, signal())();
    expect(change.calls[0]).toMatchObject({
      method: 'PUT',
      url: '/api/vm/vm-1/change',
      body: { key: 'net', value: 'lan#ws-1:1' },
    });
  });
});
