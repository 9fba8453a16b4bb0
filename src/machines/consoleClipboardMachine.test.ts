import { describe, expect, it } from 'vitest';
import { createActor, fromPromise, waitFor } from 'xstate';
import { BOTH_WAYS, PASTE_ONLY, copiedNotice, type ClipboardDirections } from '../domain/clipboard';
import { consoleClipboardMachine } from './consoleClipboardMachine';
import {
  selectCanCopy,
  selectClipboardSentence,
  selectUnwrittenText,
} from './consoleClipboardMachine.selectors';

function start(options: { copy: boolean; write?: (text: string) => Promise<void> }) {
  const written: string[] = [];
  const pastes: string[] = [];
  const actor = createActor(
    consoleClipboardMachine.provide({
      actors: {
        loadClipboard: fromPromise(async (): Promise<ClipboardDirections> => ({
          copy: options.copy,
          paste: true,
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
