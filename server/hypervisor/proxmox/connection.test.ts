import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { isLockError, RETRY_BASE_MS } from './client';
import { failure, SECRET, TOKEN_ID, useFakePve } from './testing/fakePve';

// The PVE client's connection against a local HTTPS server with a self-signed certificate
// (testing/fakePve.ts): what goes on the wire (token, parameters), how PVE's answers become
// PveErrors, which calls are repeated, and the three ways of trusting the certificate.

const fake = useFakePve();
const { seen, sleeps, client } = fake;

describe('requests', () => {
  it('sends the API token and GET parameters in the query, and returns data', async () => {
    fake.handler = () => ({ body: { data: [{ vmid: 100 }] } });
    const data = await client().get<{ vmid: number }[]>('/cluster/resources', {
      type: 'vm',
      full: true,
      quiet: false,
      limit: 5,
      skipped: undefined,
    });
    expect(data).toEqual([{ vmid: 100 }]);
    const [request] = seen;
    expect(request?.method).toBe('GET');
    expect(request?.path).toBe('/api2/json/cluster/resources');
    expect(request?.headers.authorization).toBe(`PVEAPIToken=${TOKEN_ID}=${SECRET}`);
    expect(Object.fromEntries(request!.query)).toEqual({
      type: 'vm',
      full: '1',
      quiet: '0',
      limit: '5',
    });
  });

  it('sends POST and PUT parameters as a form body, DELETE parameters in the query', async () => {
    const pve = client();
    await pve.post('/nodes/pve1/qemu/9000/clone', { newid: 123, name: 'web#a b', full: false });
    await pve.put('/nodes/pve1/qemu/123/config', { delete: 'ide2', agent: undefined });
    await pve.delete('/nodes/pve1/qemu/123', { purge: true });
    const [post, put, del] = seen;
    expect(post?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(Object.fromEntries(new URLSearchParams(post!.body))).toEqual({
      newid: '123',
      name: 'web#a b',
      full: '0',
    });
    expect([...post!.query]).toEqual([]);
    expect(put?.method).toBe('PUT');
    expect(put?.body).toBe('delete=ide2');
    expect(del?.method).toBe('DELETE');
    expect(Object.fromEntries(del!.query)).toEqual({ purge: '1' });
    expect(del?.body).toBe('');
  });
});

describe('errors', () => {
  it('turns a 400 into kind invalid with the per-parameter errors', async () => {
    fake.handler = () => ({
      status: 400,
      message: 'Parameter verification failed.',
      body: { data: null, errors: { newid: 'value must be at least 100' } },
    });
    const error = await failure(client().post('/nodes/pve1/qemu/9000/clone', { newid: 5 }));
    expect(error.kind).toBe('invalid');
    expect(error.status).toBe(400);
    expect(error.errors).toEqual({ newid: 'value must be at least 100' });
    expect(error.path).toBe('/nodes/pve1/qemu/9000/clone');
    expect(error.message).toContain('POST /nodes/pve1/qemu/9000/clone');
    expect(error.message).toContain('newid: value must be at least 100');
  });

  it('classifies answers by status and by PVE reason', async () => {
    const cases: [number, string, string][] = [
      [401, 'authentication failure', 'auth'],
      [403, 'Permission check failed (/vms/100, VM.Allocate)', 'forbidden'],
      [500, "can't lock file '/var/lock/qemu-server/lock-9000.conf' - got timeout", 'locked'],
      [500, 'VM is locked (clone)', 'locked'],
      [500, "Configuration file 'nodes/pve1/qemu-server/123.conf' does not exist", 'not-found'],
      [500, 'unable to create VM 123: config file already exists', 'exists'],
      [500, 'VM 123 already running', 'server'],
      [501, "Method 'GET /nodes/x/nothing' not implemented", 'server'],
    ];
    const pve = client({ attempts: 1 });
    for (const [status, message, kind] of cases) {
      fake.handler = () => ({ status, message });
      const error = await failure(pve.post('/nodes/pve1/qemu/123/status/start'));
      expect({ status: error.status, kind: error.kind }).toEqual({ status, kind });
      expect(error.message).toContain(message);
      expect(error.message).not.toContain(SECRET);
    }
  });

  it('prefers the whole message of the body to the reason phrase', async () => {
    fake.handler = () => ({
      status: 500,
      message: 'clone failed',
      body: { data: null, message: 'clone failed: storage full\n' },
    });
    const error = await failure(client().post('/nodes/pve1/qemu/9000/clone'));
    expect(error.reason).toBe('clone failed: storage full');
  });

  it('recognises lock errors, as PveErrors and as plain messages', async () => {
    fake.handler = () => ({
      status: 500,
      message: "can't lock file '/var/lock/qemu-server/lock-9000.conf' - got timeout",
    });
    const error = await failure(client().post('/nodes/pve1/qemu/9000/clone'));
    expect(isLockError(error)).toBe(true);
    expect(isLockError(new Error('VM is locked (snapshot)'))).toBe(true);
    expect(isLockError(new Error('VM 100 already running'))).toBe(false);
    expect(isLockError('locked')).toBe(false);
  });

  it('reports a server that does not answer in time as kind timeout', async () => {
    fake.handler = () => 'hang';
    const error = await failure(client({ timeoutMs: 100, attempts: 1 }).get('/version'));
    expect(error.kind).toBe('timeout');
  });

  it('reports a refused connection as kind network', async () => {
    const closed = createHttpServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const error = await failure(client({ url: `http://127.0.0.1:${port}` }).get('/version'));
    expect(error.kind).toBe('network');
    expect(error.status).toBe(0);
  });
});

describe('retries', () => {
  it('repeats a GET after a 503 with back-off and returns its data', async () => {
    let calls = 0;
    fake.handler = () => {
      calls += 1;
      return calls === 1
        ? { status: 503, message: 'Service Unavailable' }
        : { body: { data: { version: '8.4.0' } } };
    };
    await expect(client().get('/version')).resolves.toEqual({ version: '8.4.0' });
    expect(calls).toBe(2);
    expect(sleeps).toHaveLength(1);
    expect(sleeps[0]).toBeGreaterThanOrEqual(RETRY_BASE_MS);
    expect(sleeps[0]).toBeLessThan(RETRY_BASE_MS * 2);
  });

  it('gives up a GET after its attempts, waiting twice as long each time', async () => {
    fake.handler = () => ({ status: 596, message: 'Connection timed out' });
    const error = await failure(client({ attempts: 3 }).get('/nodes/pve2/qemu'));
    expect(error.status).toBe(596);
    expect(seen).toHaveLength(3);
    expect(sleeps).toHaveLength(2);
    expect(sleeps[1]).toBeGreaterThanOrEqual(RETRY_BASE_MS * 2);
  });

  it('never repeats a POST, PUT or DELETE', async () => {
    fake.handler = () => ({ status: 503, message: 'Service Unavailable' });
    const pve = client();
    await failure(pve.post('/nodes/pve1/qemu/9000/clone', { newid: 123 }));
    await failure(pve.put('/nodes/pve1/qemu/123/config', { memory: 512 }));
    await failure(pve.delete('/nodes/pve1/qemu/123'));
    expect(seen.map((r) => r.method)).toEqual(['POST', 'PUT', 'DELETE']);
    expect(sleeps).toEqual([]);
  });

  it('does not repeat a GET that PVE refused', async () => {
    fake.handler = () => ({ status: 500, message: "Configuration file 'x' does not exist" });
    await failure(client().get('/nodes/pve1/qemu/5/config'));
    expect(seen).toHaveLength(1);
  });
});

describe('certificates', () => {
  it('accepts the pinned certificate whoever signed it, in any fingerprint spelling', async () => {
    fake.handler = () => ({ body: { data: { version: '8.4.0' } } });
    const spelled = fake.served.fingerprint.replace(/:/g, '').toLowerCase();
    await expect(client({ ca: undefined, fingerprint: spelled }).get('/version')).resolves.toEqual({
      version: '8.4.0',
    });
  });

  it('refuses another certificate than the pinned one before sending anything', async () => {
    const error = await failure(
      client({ ca: undefined, fingerprint: fake.other.fingerprint }).get('/version'),
    );
    expect(error.kind).toBe('tls');
    expect(error.message).toContain(fake.served.fingerprint);
    expect(error.message).toContain(fake.other.fingerprint);
    expect(error.message).not.toContain(SECRET);
    expect(seen).toEqual([]);
  });

  it('trusts a certificate signed by the given CA', async () => {
    fake.handler = () => ({ body: { data: 'ok' } });
    await expect(client({ ca: fake.served.cert }).get('/version')).resolves.toBe('ok');
  });

  it("refuses a self-signed certificate with Node's default trust or another CA", async () => {
    const untrusted = await failure(client({ ca: undefined }).get('/version'));
    expect(untrusted.kind).toBe('tls');
    const wrongCa = await failure(client({ ca: fake.other.cert }).get('/version'));
    expect(wrongCa.kind).toBe('tls');
    expect(seen).toEqual([]);
  });
});
