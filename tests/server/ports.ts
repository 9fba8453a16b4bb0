import { createServer } from 'node:net';

/**
 * Ports for test servers: below the kernel's ephemeral range (32768 to 60999 here), whose ports
 * every outgoing connection takes. A port the kernel handed out as free could be taken by a
 * client's connection (to PostgreSQL, Redis, another test's server) before the test server,
 * built in the meantime, listened on it: EADDRINUSE under load.
 */
const PORTS = { low: 20_000, high: 32_000 };

const canListen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });

/** A loopback port nothing listens on, from PORTS, at random so that parallel files differ. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = PORTS.low + Math.floor(Math.random() * (PORTS.high - PORTS.low));
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port between ${PORTS.low} and ${PORTS.high}`);
}
