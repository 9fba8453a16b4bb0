import type { ActorRefLike, AnyActorRef, AnyEventObject, InspectionEvent } from 'xstate';

/** One event received by a root actor. */
export interface EventLogEntry {
  /** Position in the log since it was created; keeps counting across drops and `clear()`. */
  readonly seq: number;
  /** When the event was received, in epoch milliseconds. */
  readonly at: number;
  /** The receiving actor's systemId, else its sessionId. */
  readonly actorId: string;
  /** The event with its secrets replaced by '[redacted]'; plain JSON data. */
  readonly event: AnyEventObject;
  /** The id of the receiving actor's machine (`workspaceArchive`), when it runs one. */
  readonly machine?: string;
  /** The machine's state value before the event, when the log saw it. */
  readonly before?: unknown;
  /** Its state value once the event was handled. */
  after?: unknown;
}

export interface EventLog {
  /** Pass as the `inspect` option of `createActor`. */
  inspect(inspectionEvent: InspectionEvent): void;
  /** Oldest first. The same array until the log changes, so views can use it as a snapshot. */
  entries(): readonly EventLogEntry[];
  clear(): void;
  toJSON(): string;
  /** Calls `listener` after every change; returns the unsubscribe function. */
  subscribe(listener: () => void): () => void;
}

export interface EventLogOptions {
  /** How many entries to keep; older ones are dropped first. */
  capacity?: number;
  now?: () => number;
}

export const REDACTED = '[redacted]';

/** Keys whose values are credentials, compared case-insensitively, at any depth of an event. */
const SECRET_KEYS = new Set([
  'accesstoken',
  'access_token',
  'idtoken',
  'id_token',
  'refreshtoken',
  'refresh_token',
  'password',
  'ticket',
]);

/** Deeper than any event of ours; stops runaway structures (DOM nodes, framework internals). */
const MAX_DEPTH = 12;

/** The inspection API types actor refs narrowly; at run time they are full actors. */
type InspectedRef = ActorRefLike &
  Partial<Pick<AnyActorRef, 'id' | '_parent'>> & { systemId?: string | undefined };

/** The id of the machine an actor runs (`logic.id`), if it runs a machine. */
function machineIdOf(ref: InspectedRef): string | undefined {
  const id = (ref as { logic?: { id?: unknown } }).logic?.id;
  return typeof id === 'string' ? id : undefined;
}

function actorIdOf(ref: InspectedRef): string {
  return ref.systemId ?? ref.sessionId ?? ref.id ?? '';
}

const isActorRef = (value: object): value is InspectedRef =>
  typeof (value as Partial<InspectedRef>).sessionId === 'string' &&
  typeof (value as Partial<InspectedRef>).send === 'function';

/**
 * A JSON-safe copy of `value` with secrets redacted. Errors keep their name and message, dates
 * become ISO strings, actor refs become their id, bytes their size, functions are dropped and
 * cycles are cut.
 */
function sanitize(value: unknown, ancestors: object[] = []): unknown {
  if (typeof value === 'bigint' || typeof value === 'symbol') return value.toString();
  if (typeof value === 'function') return undefined;
  if (typeof value !== 'object' || value === null) return value;
  if (ancestors.includes(value)) return '[circular]';
  if (ancestors.length >= MAX_DEPTH) return '[too deep]';
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (isActorRef(value)) return { actorId: actorIdOf(value) };
  // Bytes are named by their size: a recording's records hold megabytes, copied key by key they
  // took seconds of a replay's opening (docs/performance.md).
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) {
    return `[${value.constructor.name}: ${value.byteLength} bytes]`;
  }

  const path = [...ancestors, value];
  if (Array.isArray(value)) return value.map((item: unknown) => sanitize(item, path) ?? null);

  const copy: Record<string, unknown> = {};
  if (value instanceof Error) {
    copy.name = value.name;
    copy.message = value.message;
  }
  for (const [key, item] of Object.entries(value)) {
    copy[key] =
      SECRET_KEYS.has(key.toLowerCase()) && item !== null && item !== undefined
        ? REDACTED
        : sanitize(item, path);
  }
  return copy;
}

/**
 * The bounded, append-only event log of the actor system: every event received by a
 * root actor (one without a parent), with credentials redacted, in a ring buffer of `capacity`
 * entries. Events between a root and its children are left out: the root's own events replay
 * them.
 */
export function createEventLog({
  capacity = 1000,
  now = () => Date.now(),
}: EventLogOptions = {}): EventLog {
  if (!Number.isInteger(capacity) || capacity < 1) {
    throw new RangeError(`createEventLog: capacity must be a positive integer, got ${capacity}`);
  }
  const ring: EventLogEntry[] = [];
  /** Index in `ring` of the oldest entry once the ring is full. */
  let oldest = 0;
  let nextSeq = 1;
  let ordered: readonly EventLogEntry[] | null = [];
  const listeners = new Set<() => void>();
  /** Each root actor's last state value, and its entry that waits for the state it led to. */
  const lastValue = new Map<string, unknown>();
  const awaitingAfter = new Map<string, { entry: EventLogEntry; event: unknown }>();

  const changed = () => {
    ordered = null;
    for (const listener of [...listeners]) listener();
  };

  const append = (entry: EventLogEntry) => {
    if (ring.length < capacity) {
      ring.push(entry);
    } else {
      ring[oldest] = entry;
      oldest = (oldest + 1) % capacity;
    }
    changed();
  };

  const entries = (): readonly EventLogEntry[] => {
    ordered ??= Object.freeze([...ring.slice(oldest), ...ring.slice(0, oldest)]);
    return ordered;
  };

  return {
    inspect(inspectionEvent) {
      const target = inspectionEvent.actorRef as InspectedRef;
      if (target._parent !== undefined) return;
      const actorId = actorIdOf(target);
      if (inspectionEvent.type === '@xstate.snapshot') {
        // The snapshot an event led to follows that event at once (XState handles one at a time).
        const value = sanitize((inspectionEvent.snapshot as { value?: unknown }).value);
        lastValue.set(actorId, value);
        const waiting = awaitingAfter.get(actorId);
        awaitingAfter.delete(actorId);
        if (waiting && waiting.event === inspectionEvent.event && value !== undefined) {
          waiting.entry.after = value;
          changed();
        }
        return;
      }
      if (inspectionEvent.type !== '@xstate.event') return;
      const machine = machineIdOf(target);
      const entry: EventLogEntry = {
        seq: nextSeq++,
        at: now(),
        actorId,
        event: sanitize(inspectionEvent.event) as AnyEventObject,
        ...(machine === undefined ? {} : { machine }),
        ...(lastValue.has(actorId) ? { before: lastValue.get(actorId) } : {}),
      };
      awaitingAfter.set(actorId, { entry, event: inspectionEvent.event });
      append(entry);
    },
    entries,
    clear() {
      ring.length = 0;
      oldest = 0;
      changed();
    },
    toJSON: () => JSON.stringify(entries()),
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
  };
}

/** Events an actor produces itself when it starts or stops; replaying them would repeat that. */
const LIFECYCLE_EVENTS = new Set(['xstate.init', 'xstate.stop']);

/**
 * Sends the recorded events of `actorId` (by default the id the log would give `actor`) to
 * `actor`, oldest first, and returns how many were sent. Delayed (`xstate.after.*`) and actor
 * result (`xstate.done.actor.*`) events are replayed too, so a fresh actor whose clock does not
 * advance and whose children do not settle ends in the recorded actor's state.
 */
export function replay(
  entries: readonly EventLogEntry[],
  actor: AnyActorRef,
  actorId: string = actorIdOf(actor as InspectedRef),
): number {
  let sent = 0;
  for (const entry of entries) {
    if (entry.actorId !== actorId || LIFECYCLE_EVENTS.has(entry.event.type)) continue;
    actor.send(entry.event);
    sent += 1;
  }
  return sent;
}
