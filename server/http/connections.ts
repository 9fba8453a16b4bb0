import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

// The HTTP server under Fastify, made here so that slow or greedy clients cannot hold it: the
// headers of a request must arrive in time (Node answers 408 and closes), and one client address
// holds a bounded number of connections. Request bodies have their own limits in ./body.ts, since
// Node's only body limit (`requestTimeout`) is a total deadline for every route, which a 10 GiB
// ISO upload cannot meet. WebSocket connections leave Node's HTTP timeouts once upgraded.

/**
 * How long a connection may stay idle between requests: Fastify's default, longer than the 60 s
 * idle timeout of common load balancers so that they never reuse a connection being closed.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 72_000;

export interface ConnectionLimits {
  headersTimeoutMs: number;
  /** 0: no cap. */
  maxConnectionsPerClient: number;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** Closes a client's connections beyond the cap as soon as they open. */
function capPerClient(server: Server, max: number): void {
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress;
    if (!address) return;
    const count = (open.get(address) ?? 0) + 1;
    if (count > max) {
      socket.destroy();
      return;
    }
    open.set(address, count);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
    });
  });
}

/** Fastify's `serverFactory`: a plain HTTP server with these limits. */
export function serverWithLimits(limits: ConnectionLimits) {
  return (handler: Handler): Server => {
    const server = createServer(
      {
        headersTimeout: limits.headersTimeoutMs,
        // Bodies are timed per route (./body.ts); 0 leaves them to that.
        requestTimeout: 0,
        // Node looks for late headers this often (30 s by default, which would let a client that
        // never finishes its headers stay that much longer than the timeout).
        connectionsCheckingInterval: Math.min(1_000, limits.headersTimeoutMs),
      },
      handler,
    );
    server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
    if (limits.maxConnectionsPerClient > 0) capPerClient(server, limits.maxConnectionsPerClient);
    return server;
  };
}
