import Fastify from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { registerBodyHandling } from './body';

// The body watch drops the connection of a client whose body comes too slowly. A request injected
// from inside the process has no connection: its watch must never run, even when the route
// answers without reading the body (the request then never closes) and the limits pass.

const TIMEOUTS = { bodyTimeoutMs: 40, idleTimeoutMs: 20, uploadMinBytesPerSecond: 1 };

describe('the body watch', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('leaves an injected request alone once its limits have passed, its body unread', async () => {
    const app = Fastify();
    registerBodyHandling(app, TIMEOUTS);
    // Refused before its body is read, as an unauthenticated call is.
    app.post(
      '/refused',
      {
        preParsing: async (_req, reply) => {
          await reply.code(401).send();
        },
      },
      () => 'no',
    );
    await app.ready();
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
    const res = await app.inject({ method: 'POST', url: '/refused', payload: { a: 1 } });
    expect(res.statusCode).toBe(401);
    // A watch that ran would now try to drop a connection the request does not have.
    expect(() => vi.advanceTimersByTime(10 * TIMEOUTS.bodyTimeoutMs)).not.toThrow();
    expect(vi.getTimerCount()).toBe(0);
    await app.close();
  });
});
