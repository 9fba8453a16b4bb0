import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP relay to Redis that can be cut and opened again, as a network outage would. Opened with
 * `holdOn`, a client connection whose bytes match it is held from then on: its requests reach
 * Redis only when the relay is cut (never), as a link that stalls mid-command would.
 */
export function redisRelay(target: URL, port: number) {
  const sockets = new Set<Socket>();
  let listener: Server | null = null;
  const held: string[] = [];
  const heldWaiters: Array<() => void> = [];
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  return {
    port,
    /** What held connections have sent since the relay was last opened. */
    held,
    /** Resolves once a connection was held. */
    holding: () =>
      new Promise<void>((resolve) => {
        if (held.length) resolve();
        else heldWaiters.push(resolve);
      }),
    open: (options: { holdOn?: RegExp } = {}) =>
      new Promise<void>((resolve, reject) => {
        held.length = 0;
        listener = createServer((client) => {
          const upstream = connect(Number(target.port || 6379), target.hostname);
          track(client);
          track(upstream);
          client.on('close', () => upstream.destroy());
          upstream.on('close', () => client.destroy());
          upstream.pipe(client);
          let holding = false;
          client.on('data', (chunk: Buffer) => {
            if (!holding && options.holdOn?.test(chunk.toString('latin1'))) holding = true;
            if (!holding) {
              upstream.write(chunk);
              return;
            }
            held.push(chunk.toString('latin1'));
            for (const resolve of heldWaiters.splice(0)) resolve();
          });
        });
        listener.once('error', reject);
        listener.listen(port, '127.0.0.1', () => resolve());
      }),
    cut: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        if (listener) listener.close(() => resolve());
        else resolve();
        listener = null;
      }),
  };
}
