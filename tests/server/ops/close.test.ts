import { expect, it } from 'vitest';
import { startTestServer } from '../harness';

// App.close (server/app.ts): the janitor stops first, hub clients are told they may reconnect,
// and once the requests under way are done each plugin closes what it opened, in the reverse
// order of their loading: the driver, the backplane, the cache, and the store last, since
// everything before it may still write.

it('stops the janitor, tells hub clients, then closes the driver, backplane, cache and store', async () => {
  const server = await startTestServer();
  const { app } = server;
  const closed: string[] = [];
  const record = <K extends string>(
    name: string,
    target: Record<K, () => Promise<void>>,
    key: K,
  ) => {
    const original = target[key].bind(target);
    target[key] = async () => {
      closed.push(name);
      await original();
    };
  };
  record('janitor', app.app.janitor, 'stop');
  record('hub', app.hub, 'close');
  record('driver', app.driver, 'close');
  record('backplane', app.app.backplane, 'close');
  record('cache', app.cache, 'close');
  record('store', app.store, 'close');
  await server.close();
  expect(closed).toEqual(['janitor', 'hub', 'driver', 'backplane', 'cache', 'store']);
});
