import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromCallback, fromPromise, waitFor } from 'xstate';
import {
  BOTH_WAYS,
  COPY_ONLY,
  DESKTOP_BOTH_WAYS,
  PASTE_ONLY,
  copiedNotice,
  type ClipboardDirections,
} from '../domain/clipboard';
import { consoleClipboardMachine, type ConsoleClipboardReport } from './consoleClipboardMachine';
import {
  selectCanCopy,
  selectClipboardSentence,
  selectWatchingClipboardSentence,
  selectUnwrittenText,
} from './consoleClipboardMachine.selectors';
import { deferred, flush, type Deferred } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';

function start(options: {
  copy: boolean;
  via?: ClipboardDirections['via'];
  write?: (text: string) => Promise<void>;
}) {
  const written: string[] = [];
  const pastes: string[] = [];
  const actor = createActor(
    consoleClipboardMachine.provide({
      actors: {
        loadClipboard: fromPromise(async (): Promise<ClipboardDirections> => ({
          copy: options.copy,
          paste: true,
          ...(options.via ? { via: options.via } : {}),
        })),
        copyOut: fromPromise(async () => 'from the machine ✓'),
        writeClipboard: fromPromise(async ({ input }: { input: { text: string } }) => {
          await (options.write ?? (async () => {}))(input.text);
          written.push(input.text);
        }),
        recordPaste: fromPromise(async ({ input }: { input: { vmId: string } }) => {
          pastes.push(input.vmId);
        }),
      },
    }),
    { input: { vmId: 'vm1' } },
  ).start();
  return { actor, written, pastes };
}

describe('consoleClipboard', () => {
  it('says nothing before the console connects, then which directions work', async () => {
    const { actor } = start({ copy: true });
    expect(selectClipboardSentence(actor.getSnapshot())).toBeNull();
    actor.send({ type: 'console.connected' });
    await waitFor(actor, (s) => s.matches('ready'));
    expect(selectClipboardSentence(actor.getSnapshot())).toBe(BOTH_WAYS);
    expect(selectCanCopy(actor.getSnapshot())).toBe(true);
    // A console that only watches pastes nothing, whatever the machine takes.
    expect(selectWatchingClipboardSentence(actor.getSnapshot())).toBe(COPY_ONLY);
  });

  it('copies what the machine copied onto the browser clipboard and says so', async () => {
    const { actor, written } = start({ copy: true });
    actor.send({ type: 'console.connected' });
    await waitFor(actor, (s) => s.matches('ready'));
    actor.send({ type: 'console.copyRequested' });
    await waitFor(actor, (s) => s.matches('ready') && s.context.notice !== null);
    expect(written).toEqual(['from the machine ✓']);
    expect(actor.getSnapshot().context.notice).toBe(copiedNotice('from the machine ✓'));
  });

  it('shows the text to copy by hand when the browser refuses to write it', async () => {
    const { actor } = start({ copy: true, write: () => Promise.reject(new Error('denied')) });
    actor.send({ type: 'console.connected' });
    await waitFor(actor, (s) => s.matches('ready'));
    actor.send({ type: 'console.copyRequested' });
    await waitFor(actor, (s) => s.matches('ready') && s.context.error !== null);
    expect(selectUnwrittenText(actor.getSnapshot())).toBe('from the machine ✓');
  });

  it('offers no copy on a machine without an agent, and says paste only', async () => {
    const { actor, written } = start({ copy: false });
    actor.send({ type: 'console.connected' });
    await waitFor(actor, (s) => s.matches('ready'));
    expect(selectClipboardSentence(actor.getSnapshot())).toBe(PASTE_ONLY);
    expect(selectCanCopy(actor.getSnapshot())).toBe(false);
    actor.send({ type: 'console.copyRequested' });
    expect(actor.getSnapshot().matches('ready')).toBe(true);
    expect(written).toEqual([]);
  });

  it('records each paste on the server', async () => {
    const { actor, pastes } = start({ copy: false });
    actor.send({ type: 'console.pasted' });
    actor.send({ type: 'console.pasted' });
    await waitFor(actor, () => pastes.length === 2);
    expect(pastes).toEqual(['vm1', 'vm1']);
  });
});

describe('consoleClipboard on a desktop that shares its clipboard', () => {
  it('puts what the desktop copies on the browser clipboard as it comes, without Copy', async () => {
    const { actor, written } = start({ copy: true, via: 'vdagent' });
    actor.send({ type: 'console.connected' });
    await waitFor(actor, (s) => s.matches('ready'));
    expect(selectClipboardSentence(actor.getSnapshot())).toBe(DESKTOP_BOTH_WAYS);
    expect(selectCanCopy(actor.getSnapshot())).toBe(false);
    actor.send({ type: 'console.guestCopied', text: '' });
    actor.send({ type: 'console.guestCopied', text: 'from the desktop ✓' });
    await waitFor(actor, (s) => s.matches('ready') && s.context.notice !== null);
    expect(written).toEqual(['from the desktop ✓']);
    expect(actor.getSnapshot().context.notice).toBe(copiedNotice('from the desktop ✓'));
  });

  it('tells the console what the clipboard can do each time it is asked', async () => {
    const reports: unknown[] = [];
    const parentRef = createActor(
      fromCallback<ConsoleClipboardReport>(({ receive }) => receive((e) => reports.push(e))),
    ).start();
    const actor = createActor(
      consoleClipboardMachine.provide({
        actors: {
          loadClipboard: fromPromise(async (): Promise<ClipboardDirections> => ({
            copy: true,
            paste: true,
            via: 'vdagent',
          })),
        },
      }),
      { input: { vmId: 'vm1', parentRef } },
    ).start();
    actor.send({ type: 'console.connected' });
    await waitFor(actor, (s) => s.matches('ready'));
    expect(reports).toEqual([
      {
        type: 'clipboard.directionsKnown',
        directions: { copy: true, paste: true, via: 'vdagent' },
      },
    ]);
  });
});

describe('consoleClipboard against an abstract model', () => {
  // What the machine's clipboard can do decides what copies: Copy on a machine with the agent,
  // the desktop's own copies on a machine that shares its clipboard, nothing when unknown.
  const model = createMachine({
    id: 'consoleClipboardModel',
    initial: 'idle',
    states: {
      idle: { on: { CONNECTED: 'loading' } },
      loading: {
        on: { LOADED_AGENT: 'agent', LOADED_DESKTOP: 'desktop', LOAD_FAILED: 'unknown' },
      },
      agent: { on: { COPY: 'copying', GUEST_COPIED: 'agent', CONNECTED: 'loading' } },
      desktop: { on: { GUEST_COPIED: 'desktopWriting', COPY: 'desktop', CONNECTED: 'loading' } },
      unknown: { on: { COPY: 'unknown', CONNECTED: 'loading' } },
      copying: { on: { COPIED: 'agentWriting', COPY_FAILED: 'agent' } },
      agentWriting: { on: { WRITTEN: 'agent', WRITE_REFUSED: 'agent' } },
      desktopWriting: {
        on: { WRITTEN: 'desktop', WRITE_REFUSED: 'desktop', GUEST_COPIED: 'desktopWriting' },
      },
    },
  });
  const paths = modelPaths(model);

  it('walks every transition of the model', () => {
    const { walked, transitions } = transitionCoverage(model, paths);
    expect(walked).toEqual(transitions);
  });

  it('agrees with the machine', () => {
    expect(
      modelDisagreements(model, consoleClipboardMachine, {
        states: {
          idle: 'idle',
          loading: 'loading',
          agent: 'ready',
          desktop: 'ready',
          unknown: 'ready',
          copying: 'copying',
          agentWriting: 'writing',
          desktopWriting: 'writing',
        },
        events: {
          CONNECTED: 'console.connected',
          LOADED_AGENT: 'xstate.done.actor.loadClipboard',
          LOADED_DESKTOP: 'xstate.done.actor.loadClipboard',
          LOAD_FAILED: 'xstate.error.actor.loadClipboard',
          COPY: 'console.copyRequested',
          GUEST_COPIED: 'console.guestCopied',
          COPIED: 'xstate.done.actor.copyOut',
          COPY_FAILED: 'xstate.error.actor.copyOut',
          WRITTEN: 'xstate.done.actor.writeClipboard',
          WRITE_REFUSED: 'xstate.error.actor.writeClipboard',
        },
        // A paste's record and the dismissal of a notice change no state (tests above).
        unmodelledEvents: ['console.pasted', 'console.copyNoticeDismissed'],
      }),
    ).toEqual([]);
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(consoleClipboardMachine, {
        serializeState: (snapshot) => JSON.stringify(snapshot.value),
        inputs: [{ vmId: 'vm1' }],
        payloads: [
          { type: 'xstate.done.actor.loadClipboard', output: { copy: true, paste: true } },
          { type: 'xstate.done.actor.copyOut', output: 'text' },
        ],
      }),
    ).toEqual([]);
  });

  /** The machine with every effect waiting for the test. */
  function harness() {
    const calls: Array<{ kind: string; input: unknown; answer: Deferred<unknown> }> = [];
    const call = <T, I>(kind: string) =>
      fromPromise<T, I>(({ input }) => {
        const answer = deferred<unknown>();
        calls.push({ kind, input, answer });
        return answer.promise as Promise<T>;
      });
    const actor = createActor(
      consoleClipboardMachine.provide({
        actors: {
          loadClipboard: call<ClipboardDirections, { vmId: string }>('load'),
          copyOut: call<string, { vmId: string }>('copy'),
          writeClipboard: call<void, { text: string }>('write'),
          recordPaste: fromPromise(async () => {}),
        },
      }),
      { input: { vmId: 'vm1' } },
    ).start();
    const last = (kind: string) => calls.filter((c) => c.kind === kind).at(-1);
    const settle = async (kind: string, value: unknown, ok = true) => {
      const pending = last(kind)?.answer;
      if (ok) pending?.resolve(value);
      else pending?.reject(new Error('refused'));
      await flush();
    };
    return { actor, calls, last, settle };
  }

  for (const path of paths) {
    it(path.description, async () => {
      const h = harness();
      const snapshot = () => h.actor.getSnapshot();
      const ready = (via: string | null) => () => {
        expect(snapshot().value).toBe('ready');
        expect(snapshot().context.directions?.via ?? null).toBe(via);
      };
      await path.test({
        states: {
          idle: () => expect(snapshot().value).toBe('idle'),
          loading: () => expect(snapshot().value).toBe('loading'),
          agent: () => {
            ready('agent')();
            expect(selectCanCopy(snapshot())).toBe(true);
          },
          desktop: () => {
            ready('vdagent')();
            expect(selectCanCopy(snapshot())).toBe(false);
            expect(selectClipboardSentence(snapshot())).toBe(DESKTOP_BOTH_WAYS);
          },
          unknown: () => {
            expect(snapshot().value).toBe('ready');
            expect(snapshot().context.directions).toBeNull();
          },
          copying: () => expect(h.last('copy')?.input).toEqual({ vmId: 'vm1' }),
          agentWriting: () => {
            expect(snapshot().value).toBe('writing');
            expect(h.last('write')?.input).toEqual({ text: 'from the agent' });
          },
          desktopWriting: () => {
            expect(snapshot().value).toBe('writing');
            expect(h.last('write')?.input).toEqual({ text: 'from the desktop' });
          },
        },
        events: {
          CONNECTED: () => void h.actor.send({ type: 'console.connected' }),
          LOADED_AGENT: () => h.settle('load', { copy: true, paste: true, via: 'agent' }),
          LOADED_DESKTOP: () => h.settle('load', { copy: true, paste: true, via: 'vdagent' }),
          LOAD_FAILED: () => h.settle('load', null, false),
          COPY: () => void h.actor.send({ type: 'console.copyRequested' }),
          GUEST_COPIED: () =>
            void h.actor.send({ type: 'console.guestCopied', text: 'from the desktop' }),
          COPIED: () => h.settle('copy', 'from the agent'),
          COPY_FAILED: () => h.settle('copy', null, false),
          WRITTEN: () => h.settle('write', undefined),
          WRITE_REFUSED: async () => {
            const text = (h.last('write')?.input as { text: string }).text;
            await h.settle('write', null, false);
            expect(selectUnwrittenText(snapshot())).toBe(text);
          },
        },
      });
    });
  }
});
