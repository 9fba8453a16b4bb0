import { describe, expect, it } from 'vitest';
import { failure, SECRET, TOKEN_ID, useFakePve } from './testing/fakePve';

// The PVE client's WebSockets (vncwebsocket) against a local HTTPS server (testing/fakePve.ts):
// the same credentials and certificate trust as its requests, and a socket handed over paused.

const fake = useFakePve();
const { wsHeaders, wsUrls, client } = fake;

describe('WebSockets', () => {
  it('opens a WebSocket with the token header, the parameters and the binary protocol', async () => {
    const socket = await client().openWebSocket('/nodes/pve1/qemu/100/vncwebsocket', {
      port: 5900,
      vncticket: 'PVEVNC:abc',
    });
    expect(wsHeaders[0]?.authorization).toBe(`PVEAPIToken=${TOKEN_ID}=${SECRET}`);
    expect(wsHeaders[0]?.['sec-websocket-protocol']).toBe('binary');
    const query = new URL(wsUrls[0]!, 'https://localhost').searchParams;
    expect(Object.fromEntries(query)).toEqual({ port: '5900', vncticket: 'PVEVNC:abc' });
    const echoed = new Promise<Buffer>((resolve) => socket.once('message', resolve));
    socket.resume();
    socket.send(Buffer.from('RFB'));
    expect((await echoed).toString()).toBe('RFB');
    socket.close();
  });

  it('hands the socket over paused, so that what the server says first waits for a listener', async () => {
    const socket = await client().openWebSocket('/nodes/pve1/qemu/100/vncwebsocket', {
      greet: 1,
    });
    expect(socket.isPaused).toBe(true);
    const greeting = new Promise<Buffer>((resolve) => socket.once('message', resolve));
    socket.resume();
    expect((await greeting).toString()).toBe('RFB 003.008\n');
    socket.close();
  });

  it('keeps to the pinned certificate for WebSockets too', async () => {
    const pinned = client({ ca: undefined, fingerprint: fake.served.fingerprint });
    const socket = await pinned.openWebSocket('/nodes/pve1/qemu/100/vncwebsocket');
    socket.close();
    const refused = client({ ca: undefined, fingerprint: fake.other.fingerprint });
    const error = await failure(refused.openWebSocket('/nodes/pve1/qemu/100/vncwebsocket'));
    expect(error.kind).toBe('tls');
    expect(wsHeaders).toHaveLength(1);
  });

  it('turns a refused upgrade into a PveError of its status', async () => {
    const error = await failure(client().openWebSocket('/refuse'));
    expect(error.kind).toBe('auth');
    expect(error.status).toBe(401);
  });
});
