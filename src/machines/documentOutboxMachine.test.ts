import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromPromise, SimulatedClock } from 'xstate';
import {
  applyEditorChanges,
  createReplica,
  onLocalUpdates,
  textOf,
  toBase64,
} from '../domain/coedit';
import {
  AUTOSAVE_IDLE_MS,
  documentOutboxMachine,
  EDIT_BATCH_MS,
  SAVE_RETRY_MS,
  SAVED_INDICATOR_MS,
  type DocumentOutboxSnapshot,
} from './documentOutboxMachine';
import {
  selectCanRequestSave,
  selectIsSaved,
  selectIsSaving,
  selectIsUnsaved,
} from './documentEditorMachine.selectors';
import { deferred, flush, type Deferred } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';

/** The outbox over calls the test settles; updates are their number, as text. */
function startOutbox() {
  const clock = new SimulatedClock();
  const edits: Array<{ update: string; result: Deferred<void> }> = [];
  const saves: Array<{ update: string | null; text: string; result: Deferred<void> }> = [];
  const actor = createActor(
    documentOutboxMachine.provide({
      actors: {
        sendEdits: fromPromise<void, { workspaceId: string; update: string }>(({ input }) => {
          const result = deferred<void>();
          edits.push({ update: input.update, result });
          return result.promise;
        }),
        saveDocument: fromPromise<
          void,
          { workspaceId: string; update: string | null; text: string }
        >(({ input }) => {
          const result = deferred<void>();
          saves.push({ update: input.update, text: input.text, result });
          return result.promise;
        }),
      },
    }),
    { clock, input: { workspaceId: 'ws-1' } },
  ).start();
  // A replica of the author's own: its updates are real Yjs updates, as batches merge them.
  const replica = createReplica();
  let update = '';
  onLocalUpdates(replica, (u) => (update = toBase64(u)));
  /** The author appends `text`: the replica's update, as the replica reports it. */
  const type = (text: string) => {
    applyEditorChanges(replica.text, [
      { rangeOffset: textOf(replica).length, rangeLength: 0, text },
    ]);
    actor.send({ type: 'replica.locallyUpdated', update, text: textOf(replica) });
  };
  const snapshot = () => actor.getSnapshot();
  const wait = async (ms: number) => {
    clock.increment(ms);
    await flush();
  };
  const settle = async (calls: Array<{ result: Deferred<void> }>, ok: boolean) => {
    const call = calls.at(-1);
    if (!call) throw new Error('no call');
    if (ok) call.result.resolve();
    else call.result.reject(new Error('Failed to fetch'));
    await flush();
  };
  return { actor, clock, edits, saves, type, snapshot, wait, settle };
}

describe('documentOutboxMachine', () => {
  it('keeps local updates until the document has loaded, then sends them in a batch', async () => {
    const o = startOutbox();
    o.type('a');
    await o.wait(EDIT_BATCH_MS * 4);
    expect(o.edits).toHaveLength(0);
    o.actor.send({ type: 'document.opened' });
    await o.wait(EDIT_BATCH_MS);
    expect(o.edits).toHaveLength(1);
    await o.settle(o.edits, true);
    expect(o.snapshot().context.outbox).toEqual([]);
  });

  it('keeps a batch the hub refused and sends it with the next', async () => {
    const o = startOutbox();
    o.actor.send({ type: 'document.opened' });
    o.type('a');
    await o.wait(EDIT_BATCH_MS);
    await o.settle(o.edits, false);
    expect(o.snapshot().context.outbox).toHaveLength(1);
    o.type('b');
    await o.wait(EDIT_BATCH_MS);
    expect(o.edits).toHaveLength(2);
    await o.settle(o.edits, true);
    expect(o.snapshot().context.outbox).toEqual([]);
  });

  it('saves the latest text, remote edits included, 5 s after the last change, flushing the updates not yet sent', async () => {
    const o = startOutbox();
    o.actor.send({ type: 'document.opened' });
    o.type('a');
    o.actor.send({ type: 'replica.remotelyEdited', edits: [], text: 'ab', resync: false });
    await o.wait(AUTOSAVE_IDLE_MS);
    expect(o.saves.map(({ update, text }) => ({ update, text }))).toEqual([
      { update: expect.any(String), text: 'ab' },
    ]);
    expect(selectIsSaving(o.snapshot())).toBe(true);
    expect(selectCanRequestSave(o.snapshot())).toBe(false);
    await o.settle(o.saves, true);
    expect(selectIsSaved(o.snapshot())).toBe(true);
    await o.wait(SAVED_INDICATOR_MS);
    expect(selectIsSaved(o.snapshot())).toBe(false);
    expect(selectCanRequestSave(o.snapshot())).toBe(true);
  });

  it('offers no Save before the document has loaded', () => {
    const o = startOutbox();
    expect(selectCanRequestSave(o.snapshot())).toBe(false);
    o.actor.send({ type: 'document.saveRequested' });
    expect(o.saves).toHaveLength(0);
  });

  it('retries a failed save after 1 s, then 2 s, showing it unsaved meanwhile', async () => {
    const o = startOutbox();
    o.actor.send({ type: 'document.opened' });
    o.actor.send({ type: 'document.saveRequested' });
    await o.settle(o.saves, false);
    expect(selectIsUnsaved(o.snapshot())).toBe(true);
    await o.wait(SAVE_RETRY_MS(0));
    await o.settle(o.saves, false);
    await o.wait(SAVE_RETRY_MS(1) - 1);
    expect(o.saves).toHaveLength(2);
    await o.wait(1);
    expect(o.saves).toHaveLength(3);
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(documentOutboxMachine, {
        serializeState: (snapshot) => {
          const { context } = snapshot as DocumentOutboxSnapshot;
          return JSON.stringify([
            snapshot.value,
            context.outbox.length > 0,
            context.sending !== null,
            context.saveAttempt > 0,
          ]);
        },
        inputs: [{ workspaceId: 'ws-1' }],
        payloads: [{ type: 'replica.locallyUpdated', update: 'AA==', text: 'x' }],
      }),
    ).toEqual([]);
  });
});

/**
 * Model-based test of edit batching (spec §9: local edits go out together at most every 500 ms,
 * and stay until the server has them), driving the real outbox against a hub the test answers.
 */
describe('documentOutboxMachine against the batching model', () => {
  type ModelEvent = { type: 'EDIT' } | { type: 'WAIT' } | { type: 'SENT' } | { type: 'REFUSED' };

  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'batchingModel',
    initial: 'empty',
    states: {
      empty: { on: { EDIT: 'batching' } },
      batching: { on: { EDIT: 'batching', WAIT: 'sending' } },
      sending: { on: { SENT: 'empty', REFUSED: 'batching', EDIT: 'sendingMore' } },
      sendingMore: { on: { SENT: 'batching', REFUSED: 'batching' } },
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, documentOutboxMachine, {
        states: {
          empty: 'document.open.sync.idle',
          batching: 'document.open.sync.batching',
          sending: 'document.open.sync.sending',
          sendingMore: 'document.open.sync.sending',
        },
        events: {
          EDIT: 'replica.locallyUpdated',
          WAIT: 'xstate.after.editBatch.documentOutbox.document.open.sync.batching',
          SENT: 'xstate.done.actor.sendEdits',
          REFUSED: 'xstate.error.actor.sendEdits',
        },
        // Paths start once the document has loaded; saving: the save model of the document
        // editor's tests, and the unit tests above.
        unmodelledStates: ['updates', 'document.loading', 'document.open.save'],
        unmodelledEvents: ['document.opened', 'document.saveRequested', 'replica.remotelyEdited'],
      }),
    ).toEqual([]);
  });

  const paths = modelPaths(model);

  it('walks every transition of the model', () => {
    const { walked, transitions } = transitionCoverage(model, paths);
    expect(walked).toEqual(transitions);
  });

  for (const path of paths) {
    it(path.description, async () => {
      const o = startOutbox();
      o.actor.send({ type: 'document.opened' });
      let typed = 0;
      let confirmed = 0;
      let sent = 0;
      const expectSync = (state: 'idle' | 'batching' | 'sending', calls: number) => () => {
        expect(o.snapshot().matches({ document: { open: { sync: state } } })).toBe(true);
        expect(o.snapshot().context.outbox).toHaveLength(typed - confirmed);
        expect(o.edits).toHaveLength(calls);
      };
      await path.test({
        states: {
          empty: () => expectSync('idle', sent)(),
          batching: () => expectSync('batching', sent)(),
          sending: () => expectSync('sending', sent)(),
          sendingMore: () => expectSync('sending', sent)(),
        },
        events: {
          EDIT: () => {
            typed += 1;
            o.type(`text ${typed}`);
          },
          WAIT: async () => {
            sent += 1;
            await o.wait(EDIT_BATCH_MS);
          },
          SENT: async () => {
            // The batch in flight carried everything typed before it was taken.
            const inFlight = o.snapshot().context.sending?.through ?? 0;
            await o.settle(o.edits, true);
            confirmed = inFlight;
          },
          REFUSED: () => o.settle(o.edits, false),
        },
      });
    });
  }
});
