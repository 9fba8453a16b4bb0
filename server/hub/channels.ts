import type { FastifyBaseLogger } from 'fastify';
import { newToken } from '../core/ids';
import type { Actor } from '../core/actor';
import type { ChannelAccess } from './access';
import type { Audience, Backplane } from './backplane';
import type { HubMetrics, HubPublisher, HubTarget } from './types';
import { createPresence } from './presence';
import { PRESENCE_ACTIONS } from './presenceWire';
import { invocationFrame } from './protocol';
import type { Connection, Transport } from './transport';

// The hub's groups (channels) on this process, and the backplane that carries them to every
// server process: who listens where, joining and leaving with presence told, delivering what is
// published to a group or everyone, and revocations (a right to listen that may have ended).
// It must not read or write sockets, parse client messages, or decide whether a connection may
// join a group: the hub methods (server/hub/methods.ts) check that before `join`, and the
// transport (server/hub/transport.ts) owns the connections.

export interface ChannelsOptions {
  backplane: Backplane;
  canListen: ChannelAccess;
  /** See HubOptions.reloadActor. */
  reloadActor?: (actor: Actor) => Promise<Actor | null>;
  log: FastifyBaseLogger;
  metrics?: Pick<HubMetrics, 'published' | 'sent'>;
  presenceLimit?: number;
  transport: Pick<Transport, 'connection' | 'connections' | 'write' | 'evict'>;
}

export interface Channels extends HubPublisher {
  /** A connection allowed to listen on `room` joins it, announced to the others (Listen). */
  join(conn: Connection, room: string): Promise<void>;
  /** A connection leaves `room`, announced to the others. */
  leave(conn: Connection, room: string): Promise<void>;
  /** A member greets the others on `room` (Greet). */
  greet(conn: Connection, room: string): void;
  /** A connection has ended: it leaves every group. */
  disconnected(conn: Connection): void;
  /** See Hub.revoke. */
  revoke(target: { group?: string; subjectId?: string }): void;
  /** After the connections have ended: sends pending presence, awaits the backplane updates. */
  close(): Promise<void>;
}

/**
 * A revocation travels through the backplane like a message, so that it reaches every server
 * process, but is never sent to a client: its frame starts with a byte no JSON-protocol frame
 * starts with, followed by the subject's id (empty for everyone).
 */
const REVOKE = 0x00;

export function createChannels(options: ChannelsOptions): Channels {
  const { backplane, canListen, log, metrics, transport } = options;
  const { write } = transport;
  const groups = new Map<string, Set<Connection>>();
  /** Backplane updates still running, awaited on shutdown. */
  const settling = new Set<Promise<void>>();

  function track(work: Promise<void>) {
    const settled = work.catch((error) => log.warn({ err: error }, 'hub backplane update failed'));
    settling.add(settled);
    void settled.finally(() => settling.delete(settled));
  }

  // Presence changes travel between processes as control frames; each process tells its own
  // connections in the form each asked for.
  const presence = createPresence<Connection>(newToken(), {
    limit: options.presenceLimit,
    members: (room) => groups.get(room),
    connection: (id) => transport.connection(id),
    write,
    publish: (room, frame) => backplane.publish({ all: false, group: room }, frame),
    sent: (count) => metrics?.sent(count),
  });

  // A user's own channel (their id) carries news of their workspaces to their tabs: another tab
  // of theirs is nobody arriving. (A gamespace agent's id is its gamespace's channel, where it
  // is announced as in the reference.)
  const announced = (conn: Connection, room: string) =>
    room !== conn.actor.id || conn.actor.isAgent;

  function leave(conn: Connection, room: string): Promise<void> {
    conn.groups.delete(room);
    const members = groups.get(room);
    members?.delete(conn);
    if (members?.size === 0) groups.delete(room);
    if (announced(conn, room)) {
      metrics?.published('PresenceEvent');
      presence.left(conn, room);
    }
    return backplane.left(conn.id, room);
  }

  /** Checks connections again after a revocation; see Hub.revoke. */
  async function recheck(conn: Connection, rooms: readonly string[]) {
    const actor = options.reloadActor ? await options.reloadActor(conn.actor) : conn.actor;
    if (!conn.open || !transport.connection(conn.id)) return;
    if (!actor || actor.role === 'disabled') {
      transport.evict(conn);
      return;
    }
    conn.actor = actor;
    for (const room of rooms) {
      if (conn.groups.has(room) && !(await canListen(actor, room))) {
        await leave(conn, room);
      }
    }
  }

  function revoked(audience: Audience, frame: Buffer) {
    const subjectId = frame.subarray(1).toString('utf8');
    const concerned = (conn: Connection) => !subjectId || conn.actor.id === subjectId;
    if (audience.all) {
      for (const conn of transport.connections()) {
        if (concerned(conn)) track(recheck(conn, [...conn.groups]));
      }
      return;
    }
    for (const conn of [...(groups.get(audience.group) ?? [])]) {
      if (concerned(conn)) track(recheck(conn, [audience.group]));
    }
  }

  backplane.attach((audience, frame) => {
    if (frame[0] === REVOKE) {
      revoked(audience, frame);
      return;
    }
    if (presence.handles(frame)) {
      if (!audience.all) presence.received(audience.group, frame);
      return;
    }
    let sent = 0;
    if (audience.all) {
      for (const conn of transport.connections()) {
        if (conn.handshaken) {
          write(conn, frame);
          sent += 1;
        }
      }
    } else {
      for (const conn of groups.get(audience.group) ?? []) {
        if (conn.id !== audience.except) {
          write(conn, frame);
          sent += 1;
        }
      }
    }
    // Once per delivery, not per connection: a channel of thousands costs one count.
    metrics?.sent(sent);
  });

  const target = (audience: Audience): HubTarget => ({
    send(event, payload) {
      metrics?.published(event);
      backplane.publish(audience, Buffer.from(invocationFrame(event, payload)));
    },
  });

  return {
    toAll: () => target({ all: true }),
    toGroup: (group) => target({ all: false, group }),
    toGroupExcept: (group, except) => target({ all: false, group, except }),

    async join(conn, room) {
      if (!conn.open) return;
      let members = groups.get(room);
      if (!members) groups.set(room, (members = new Set()));
      members.add(conn);
      // Listening again on a channel announces the connection again, as in the reference, but
      // it is still one connection there.
      if (!conn.groups.has(room) && announced(conn, room)) presence.entered(conn, room);
      conn.groups.add(room);
      await backplane.joined({
        id: conn.id,
        room,
        profileId: conn.user.id,
        profileName: conn.user.name,
        ...(conn.hostname ? { hostname: conn.hostname } : {}),
      });
      // Gone meanwhile (closed, or its right revoked): its departure has been announced.
      if (conn.open && conn.groups.has(room) && announced(conn, room)) {
        metrics?.published('PresenceEvent');
        presence.announce(conn, room, PRESENCE_ACTIONS.arrived);
      }
    },

    leave,

    greet(conn, room) {
      if (announced(conn, room)) {
        metrics?.published('PresenceEvent');
        presence.announce(conn, room, PRESENCE_ACTIONS.greeted);
      }
    },

    disconnected(conn) {
      for (const room of [...conn.groups]) track(leave(conn, room));
    },

    revoke({ group, subjectId }) {
      const audience: Audience = group ? { all: false, group } : { all: true };
      backplane.publish(
        audience,
        Buffer.concat([Buffer.from([REVOKE]), Buffer.from(subjectId ?? '', 'utf8')]),
      );
    },

    async close() {
      // Departures are announced to the other server processes before the backplane closes, the
      // batches they make too.
      presence.flush();
      await Promise.all(settling);
    },
  };
}
