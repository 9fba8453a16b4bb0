// What server processes share about the hub: group messages (every process delivers a message
// to its own connections in the group) and the list of live connections (GET /api/admin/live).
// One process keeps both in memory; several share them through Redis (redisBackplane.ts).

/** Who a message is for: every connection, or a group's members except one connection. */
export type Audience = { all: true } | { all: false; group: string; except?: string };

/** One connection in one room, as GET /api/admin/live lists it. */
export interface LiveEntry {
  /** The connection id. */
  id: string;
  room: string;
  profileId: string;
  profileName: string;
  /**
   * The host name an in-lab agent gave when it connected (`?hostname=`; ours, the reference's
   * agent gives none). Not listed by GET /api/admin/live, whose rows are the reference's.
   */
  hostname?: string;
}

export type Deliver = (audience: Audience, frame: Buffer) => void;

export interface Backplane {
  /** Sets where this process delivers messages to its own connections (the hub, once). */
  attach(deliver: Deliver): void;
  /** Delivers a serialized frame to its audience on every server process, this one included. */
  publish(audience: Audience, frame: Buffer): void;
  joined(entry: LiveEntry): Promise<void>;
  left(connectionId: string, room: string): Promise<void>;
  live(): Promise<LiveEntry[]>;
  close(): Promise<void>;
}

const liveKey = (connectionId: string, room: string) => `${connectionId}\n${room}`;

export function createMemoryBackplane(): Backplane {
  let deliver: Deliver = () => {};
  const entries = new Map<string, LiveEntry>();
  return {
    attach(fn) {
      deliver = fn;
    },
    publish(audience, frame) {
      deliver(audience, frame);
    },
    async joined(entry) {
      entries.set(liveKey(entry.id, entry.room), entry);
    },
    async left(connectionId, room) {
      entries.delete(liveKey(connectionId, room));
    },
    async live() {
      return [...entries.values()];
    },
    async close() {
      entries.clear();
    },
  };
}
