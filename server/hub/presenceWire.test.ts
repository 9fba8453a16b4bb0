import { describe, expect, it } from 'vitest';
import {
  batchFrame,
  changeFrame,
  directFrame,
  isControlFrame,
  PRESENCE_ACTIONS,
  presenceFrame,
  readControl,
  type Batch,
  type Change,
} from './presenceWire';
import { invocationFrame } from './protocol';

// A frame from another server process arrives as new bytes (Redis), not as the Buffer this
// process published: copying it makes the reader parse it.
const fromElsewhere = (frame: Buffer) => Buffer.from(frame);

const ADA = { id: 'u-ada', name: 'Ada' };

describe('presence wire', () => {
  it('reads back a change and a batch, published here or elsewhere', () => {
    const change: Change = { a: PRESENCE_ACTIONS.arrived, c: 'c-1', u: ADA, b: true, o: 'p-1' };
    const batch: Batch = { o: 'p-1', e: [['u-ada', 'Ada', 2]] };
    for (const read of [(f: Buffer) => f, fromElsewhere]) {
      expect(readControl(read(changeFrame(change)))).toEqual({ kind: 'change', change });
      expect(readControl(read(batchFrame(batch)))).toEqual({ kind: 'batch', batch });
    }
  });

  it('carries a finished frame to one connection unchanged', () => {
    const inner = presenceFrame(PRESENCE_ACTIONS.greeted, ADA);
    expect(readControl(fromElsewhere(directFrame('c-7', inner)))).toEqual({
      kind: 'direct',
      connectionId: 'c-7',
      frame: inner,
    });
  });

  it('tells control frames from what clients get', () => {
    const change: Change = { a: PRESENCE_ACTIONS.departed, c: 'c-1', u: ADA, b: false, o: 'p' };
    expect(isControlFrame(changeFrame(change))).toBe(true);
    expect(isControlFrame(batchFrame({ o: 'p', e: [] }))).toBe(true);
    expect(isControlFrame(directFrame('c', Buffer.from('x')))).toBe(true);
    expect(isControlFrame(presenceFrame(PRESENCE_ACTIONS.arrived, ADA))).toBe(false);
    // The hub's revocation frame starts with 0x00: not presence's.
    expect(isControlFrame(Buffer.from([0x00]))).toBe(false);
  });

  it('writes a PresenceEvent with a model only when there is one', () => {
    expect(presenceFrame(PRESENCE_ACTIONS.arrived, ADA).toString()).toBe(
      invocationFrame('PresenceEvent', { action: 'PRESENCE.ARRIVED', actor: ADA }),
    );
    const model = { channelId: 'g', actors: [ADA] };
    expect(presenceFrame(PRESENCE_ACTIONS.present, ADA, model).toString()).toBe(
      invocationFrame('PresenceEvent', { action: 'PRESENCE.PRESENT', actor: ADA, model }),
    );
  });
});
