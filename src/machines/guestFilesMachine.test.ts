import { describe, expect, it } from 'vitest';
import { createActor, fromCallback, fromPromise, SimulatedClock } from 'xstate';
import type { GuestFileAccess } from '../api/guestFiles';
import { MAX_GUEST_FILE_BYTES } from '../domain/guestFiles';
import { flush } from './testing/deferred';
import { unreachedStateIds } from './testing/reachability';
import { guestFilesMachine, type GuestFilesEvent } from './guestFilesMachine';
import {
  selectCanPutFiles,
  selectFileItems,
  selectFilesUnavailableReason,
  selectIsSendingFiles,
} from './guestFilesMachine.selectors';

const VM = 'vm-1';
const ACCESS: GuestFileAccess = {
  available: true,
  how: 'agent',
  maxBytes: MAX_GUEST_FILE_BYTES,
  reason: null,
};
const fileOf = (name: string, size = 10) => new File([new Uint8Array(size)], name);

/** The machine over a fake network: the file being sent, its callback, and the aborted ones. */
function start(access: Promise<GuestFileAccess> = Promise.resolve(ACCESS)) {
  const sending: Array<{ name: string; sendBack: (e: GuestFilesEvent) => void }> = [];
  const aborted: string[] = [];
  const actor = createActor(
    guestFilesMachine.provide({
      actors: {
        loadAccess: fromPromise(async ({ input }: { input: { vmId: string } }) => {
          expect(input.vmId).toBe(VM);
          return access;
        }),
        sendFile: fromCallback<GuestFilesEvent, { vmId: string; file: File }>(
          ({ input, sendBack }) => {
            const entry = { name: input.file.name, sendBack };
            sending.push(entry);
            return () => {
              const i = sending.indexOf(entry);
              if (i >= 0) {
                sending.splice(i, 1);
                aborted.push(input.file.name);
              }
            };
          },
        ),
      },
    }),
    { clock: new SimulatedClock(), input: { vmId: VM } },
  ).start();
  const items = () => selectFileItems(actor.getSnapshot());
  const current = () => {
    const entry = sending[sending.length - 1];
    if (!entry) throw new Error('nothing is being sent');
    return entry;
  };
  return { actor, items, current, sending, aborted };
}

describe('guestFilesMachine', () => {
  it('asks whether the machine takes files before offering them', async () => {
    const { actor } = start();
    expect(selectCanPutFiles(actor.getSnapshot())).toBe(false);
    await flush();
    expect(selectCanPutFiles(actor.getSnapshot())).toBe(true);
    expect(selectFilesUnavailableReason(actor.getSnapshot())).toBeNull();
  });

  it("says why a machine takes no files, in the server's words", async () => {
    const { actor } = start(
      Promise.resolve({
        ...ACCESS,
        available: false,
        how: null,
        reason: 'The machine is not running.',
      }),
    );
    await flush();
    expect(selectCanPutFiles(actor.getSnapshot())).toBe(false);
    expect(selectFilesUnavailableReason(actor.getSnapshot())).toBe('The machine is not running.');
  });

  it('sends the files one at a time with their progress, and ends with their path', async () => {
    const { actor, items, current, sending } = start();
    await flush();
    actor.send({ type: 'files.chosen', files: [fileOf('a.txt'), fileOf('b.txt')] });
    expect(selectIsSendingFiles(actor.getSnapshot())).toBe(true);
    expect(items().map((i) => [i.name, i.status])).toEqual([
      ['a.txt', 'sending'],
      ['b.txt', 'queued'],
    ]);
    expect(sending.map((s) => s.name)).toEqual(['a.txt']);
    current().sendBack({ type: 'file.progressed', percent: 42.4 });
    expect(items()[0]?.percent).toBe(42);
    current().sendBack({
      type: 'file.put',
      put: { name: 'a.txt', path: '/root/uploads/a.txt', size: 10, sha256: 'x' },
    });
    expect(items()[0]).toMatchObject({ status: 'done', percent: 100, path: '/root/uploads/a.txt' });
    expect(items()[1]?.status).toBe('sending');
    expect(current().name).toBe('b.txt');
    current().sendBack({
      type: 'file.failed',
      error: { message: 'InvalidOperation The machine is not running.' },
    });
    expect(items()[1]).toMatchObject({ status: 'failed' });
    expect(items()[1]?.error).toMatch(/the machine is not running/i);
    expect(selectIsSendingFiles(actor.getSnapshot())).toBe(false);
  });

  it('refuses a file over the limit before sending it, and sends the others', async () => {
    const { actor, items, sending } = start();
    await flush();
    actor.send({
      type: 'files.chosen',
      files: [fileOf('huge.bin', MAX_GUEST_FILE_BYTES + 1), fileOf('ok.txt')],
    });
    expect(items()[0]).toMatchObject({ name: 'huge.bin', status: 'failed' });
    expect(items()[0]?.error).toMatch(/larger than 1 MiB/);
    expect(sending.map((s) => s.name)).toEqual(['ok.txt']);
  });

  it('queues files chosen while one is sent, and clears the ended ones', async () => {
    const { actor, items, current } = start();
    await flush();
    actor.send({ type: 'files.chosen', files: [fileOf('a')] });
    actor.send({ type: 'files.chosen', files: [fileOf('b')] });
    expect(items().map((i) => i.status)).toEqual(['sending', 'queued']);
    current().sendBack({
      type: 'file.put',
      put: { name: 'a', path: '/p/a', size: 1, sha256: 'x' },
    });
    actor.send({ type: 'files.clearRequested' });
    expect(items().map((i) => i.name)).toEqual(['b']);
  });

  it('stopping the machine aborts the file being sent', async () => {
    const { actor, aborted } = start();
    await flush();
    actor.send({ type: 'files.chosen', files: [fileOf('a')] });
    actor.stop();
    expect(aborted).toEqual(['a']);
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(guestFilesMachine, {
        serializeState: (snapshot) => JSON.stringify(snapshot.value),
        inputs: [{ vmId: VM }],
        payloads: [
          { type: 'files.chosen', files: [fileOf('a')] },
          { type: 'file.progressed', percent: 50 },
          { type: 'file.put', put: { name: 'a', path: '/p/a', size: 1, sha256: 'x' } },
          { type: 'file.failed', error: 'no' },
        ],
      }),
    ).toEqual([]);
  });
});
