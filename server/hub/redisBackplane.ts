import { Redis } from 'ioredis';
import { newToken } from '../core/ids';
import type { Audience, Backplane, Deliver, LiveEntry } from './backplane';

// The hub shared by several server processes through Redis (REDIS_URL):
// - Messages: one pub/sub channel `{prefix}hub:events`. A process delivers to its own connections
//   at once and publishes `[origin, group|null, except|null]\n<frame>`; every other process
//   delivers the frame, unchanged, to its connections in the audience. The frame was serialized
//   once by the publisher and is never parsed again.
// - Live connections: each process keeps its own hash `{prefix}hub:live:{serverId}` (field
//   `{connectionId}\n{room}`, value the entry's JSON) and its id in the sorted set
//   `{prefix}hub:servers` scored by when it stops counting. Both expire unless the process
//   refreshes them, so the entries of a crashed process disappear within LIVE_TTL_MS.

export const LIVE_TTL_MS = 30_000;

export interface RedisBackplaneOptions {
  url: string;
  prefix: string;
  onError(error: unknown): void;
  liveTtlMs?: number;
}

const NEWLINE = 0x0a;

export async function createRedisBackplane(options: RedisBackplaneOptions): Promise<Backplane> {
  const { prefix, onError } = options;
  const ttl = options.liveTtlMs ?? LIVE_TTL_MS;
  const serverId = newToken();
  const channel = `${prefix}hub:events`;
  const serversKey = `${prefix}hub:servers`;
  const liveHash = `${prefix}hub:live:${serverId}`;
  const field = (connectionId: string, room: string) => `${connectionId}\n${room}`;

  const pub = new Redis(options.url);
  // A connection in subscriber mode can only subscribe, so messages arrive on a second one.
  // It subscribes again after a reconnect itself: ioredis's own renewal sends a command nobody
  // awaits, and its rejection, when the connection closes before Redis answers, would be
  // unhandled and end the process.
  const sub = pub.duplicate({ autoResubscribe: false });
  pub.on('error', onError);
  sub.on('error', onError);
  let subscribed = false;
  sub.on('ready', () => {
    if (subscribed) sub.subscribe(channel).catch(onError);
  });

  let deliver: Deliver = () => {};
  sub.on('messageBuffer', (_channel: Buffer, message: Buffer) => {
    const nl = message.indexOf(NEWLINE);
    if (nl < 0) return;
    try {
      const [origin, group, except] = JSON.parse(message.subarray(0, nl).toString()) as [
        string,
        string | null,
        string | null,
      ];
      if (origin === serverId) return;
      const audience: Audience =
        group === null ? { all: true } : { all: false, group, ...(except ? { except } : {}) };
      deliver(audience, message.subarray(nl + 1));
    } catch (error) {
      onError(error);
    }
  });
  await sub.subscribe(channel);
  subscribed = true;

  const announce = (tx: ReturnType<Redis['multi']>) =>
    tx
      .pexpire(liveHash, ttl)
      .zadd(serversKey, Date.now() + ttl, serverId)
      .pexpire(serversKey, ttl);
  const heartbeat = setInterval(() => {
    announce(pub.multi()).exec().catch(onError);
  }, ttl / 3);
  heartbeat.unref();
  await announce(pub.multi()).exec();

  return {
    attach(fn) {
      deliver = fn;
    },

    publish(audience, frame) {
      deliver(audience, frame);
      const header = JSON.stringify(
        audience.all ? [serverId, null, null] : [serverId, audience.group, audience.except ?? null],
      );
      pub.publish(channel, Buffer.concat([Buffer.from(`${header}\n`), frame])).catch(onError);
    },

    async joined(entry: LiveEntry) {
      await announce(
        pub.multi().hset(liveHash, field(entry.id, entry.room), JSON.stringify(entry)),
      ).exec();
    },

    async left(connectionId, room) {
      await pub.hdel(liveHash, field(connectionId, room));
    },

    async live() {
      const now = Date.now();
      const servers = await pub.zrangebyscore(serversKey, now, '+inf');
      if (!servers.length) return [];
      const tx = pub.pipeline();
      for (const id of servers) tx.hvals(`${prefix}hub:live:${id}`);
      const results = (await tx.exec()) ?? [];
      const entries: LiveEntry[] = [];
      for (const [error, values] of results) {
        if (error) throw error;
        for (const value of values as string[]) entries.push(JSON.parse(value) as LiveEntry);
      }
      return entries;
    },

    async close() {
      clearInterval(heartbeat);
      try {
        await pub.multi().del(liveHash).zrem(serversKey, serverId).exec();
      } finally {
        sub.disconnect();
        await pub.quit().catch(() => pub.disconnect());
      }
    },
  };
}
