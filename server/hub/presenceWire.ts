import { EMPTY_GUID } from '../core/ids';
import { invocationFrame } from './protocol';

// What presence (server/hub/presence.ts) says, on the wire: the PresenceEvent messages clients
// get, and the control frames server processes exchange through the backplane to tell them.
// It owns their shape and encoding only: it must not keep state, count anyone, or decide who is
// told what (presence.ts does).

export const PRESENCE_ACTIONS = {
  arrived: 'PRESENCE.ARRIVED',
  departed: 'PRESENCE.DEPARTED',
  greeted: 'PRESENCE.GREETED',
  present: 'PRESENCE.PRESENT',
  changed: 'PRESENCE.CHANGED',
} as const;

export type MemberAction = (typeof PRESENCE_ACTIONS)['arrived' | 'departed' | 'greeted'];

export interface PresenceActor {
  id: string;
  name: string;
}

/** PRESENCE.PRESENT: who was on `channelId` when the recipient arrived. */
export interface PresentModel {
  channelId: string;
  actors: PresenceActor[];
}

/** PRESENCE.CHANGED: who arrived on `channelId` and who left it since the last one. */
export interface ChangedModel {
  channelId: string;
  arrived: PresenceActor[];
  departed: PresenceActor[];
}

/** The hub speaks these messages itself: they are nobody's doing. */
export const HUB_ACTOR: PresenceActor = { id: EMPTY_GUID, name: 'Topoplay' };

// Control frames travel through the backplane like messages but are never sent to a client;
// their first byte is one no JSON-protocol frame starts with (0x00 is the hub's revocation).
/**
 * A member arrived, departed or greeted:
 * `{a: action, c: connection, u: user, b: batched, o: origin process}`.
 */
const CHANGE = 0x01;
/** A process's batch: `{o: origin process, e: [[id, name, connections on origin], ...]}`. */
const BATCH = 0x02;
/** A finished frame for one connection: the connection id, a newline, the frame. */
const DIRECT = 0x03;
const NEWLINE = 0x0a;

export interface Change {
  a: MemberAction;
  c: string;
  u: PresenceActor;
  b: boolean;
  o: string;
}

export interface Batch {
  o: string;
  e: Array<[id: string, name: string, connections: number]>;
}

/** What this process published, by frame: its own frames come back to it and are not parsed. */
const published = new WeakMap<Buffer, Change | Batch>();

function control(kind: number, value: Change | Batch): Buffer {
  const frame = Buffer.concat([Buffer.from([kind]), Buffer.from(JSON.stringify(value))]);
  published.set(frame, value);
  return frame;
}

const parsed = <T extends Change | Batch>(frame: Buffer): T =>
  (published.get(frame) ?? JSON.parse(frame.subarray(1).toString('utf8'))) as T;

export const changeFrame = (change: Change): Buffer => control(CHANGE, change);
export const batchFrame = (batch: Batch): Buffer => control(BATCH, batch);

/** `frame`, finished, for the connection `connectionId` on whichever process holds it. */
export const directFrame = (connectionId: string, frame: Buffer): Buffer =>
  Buffer.concat([Buffer.from([DIRECT]), Buffer.from(`${connectionId}\n`), frame]);

/** Whether a backplane frame is one of presence's control frames. */
export const isControlFrame = (frame: Buffer): boolean =>
  frame[0] === CHANGE || frame[0] === BATCH || frame[0] === DIRECT;

export type Control =
  | { kind: 'direct'; connectionId: string; frame: Buffer }
  | { kind: 'batch'; batch: Batch }
  | { kind: 'change'; change: Change };

/** A control frame (isControlFrame) read back. */
export function readControl(frame: Buffer): Control {
  const kind = frame[0];
  if (kind === DIRECT) {
    const nl = frame.indexOf(NEWLINE);
    return {
      kind: 'direct',
      connectionId: frame.subarray(1, nl).toString('utf8'),
      frame: frame.subarray(nl + 1),
    };
  }
  if (kind === BATCH) return { kind: 'batch', batch: parsed<Batch>(frame) };
  return { kind: 'change', change: parsed<Change>(frame) };
}

/** A PresenceEvent for clients. */
export const presenceFrame = (action: string, actor: PresenceActor, model?: unknown) =>
  Buffer.from(
    invocationFrame(
      'PresenceEvent',
      model === undefined ? { action, actor } : { action, actor, model },
    ),
  );
