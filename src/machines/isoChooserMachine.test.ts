import { describe, expect, it } from 'vitest';
import { createActor, fromPromise, SimulatedClock } from 'xstate';
import { ISO_SEARCH_DEBOUNCE_MS, isoChooserMachine } from './isoChooserMachine';
import {
  selectIsIsoListUnavailable,
  selectIsIsoSearching,
  selectIsoOptions,
} from './isoChooserMachine.selectors';
import { flush } from './testing/deferred';
import { unreachedStateIds } from './testing/reachability';

const WS = 'a1b2c3';
const PUBLIC = '00000000-0000-0000-0000-000000000000';
const PATHS = [`${WS}/tools.iso`, `${PUBLIC}/ubuntu.iso`, `${WS}/installer.iso`];

function startChooser(outcome: string[] | { reject: unknown } = PATHS) {
  const clock = new SimulatedClock();
  const searches: Array<{ term: string; local: boolean }> = [];
  const actor = createActor(
    isoChooserMachine.provide({
      actors: {
        listIsos: fromPromise<string[], { workspaceId: string; term: string; local: boolean }>(
          async ({ input }) => {
            searches.push({ term: input.term, local: input.local });
            if (!Array.isArray(outcome)) throw outcome.reject;
            return outcome;
          },
        ),
      },
    }),
    { clock, input: { workspaceId: WS } },
  ).start();
  const options = () => selectIsoOptions(actor.getSnapshot());
  return { actor, clock, searches, options };
}

describe('isoChooserMachine', () => {
  it('lists nothing until it is used, then every ISO sorted by file name', async () => {
    const { actor, searches, options } = startChooser();
    expect(searches).toEqual([]);
    actor.send({ type: 'iso.listRequested' });
    await flush();
    expect(searches).toEqual([{ term: '', local: false }]);
    expect(options()).toEqual([`${WS}/installer.iso`, `${WS}/tools.iso`, `${PUBLIC}/ubuntu.iso`]);
  });

  it('searches ISO_SEARCH_DEBOUNCE_MS after typing pauses, once', async () => {
    const { actor, clock, searches } = startChooser();
    actor.send({ type: 'iso.termChanged', term: 'u' });
    clock.increment(ISO_SEARCH_DEBOUNCE_MS - 1);
    actor.send({ type: 'iso.termChanged', term: 'ub' });
    clock.increment(ISO_SEARCH_DEBOUNCE_MS - 1);
    expect(searches).toEqual([]);
    expect(selectIsIsoSearching(actor.getSnapshot())).toBe(true);
    clock.increment(1);
    await flush();
    expect(searches).toEqual([{ term: 'ub', local: false }]);
    expect(ISO_SEARCH_DEBOUNCE_MS).toBe(500);
  });

  it('filters locally by term at once, and by workspace when asked', async () => {
    const { actor, options } = startChooser();
    actor.send({ type: 'iso.listRequested' });
    await flush();
    actor.send({ type: 'iso.termChanged', term: 'TOOLS' });
    expect(options()).toEqual([`${WS}/tools.iso`]);
    actor.send({ type: 'iso.termChanged', term: '' });
    actor.send({ type: 'iso.localToggled' });
    expect(options()).toEqual([`${WS}/installer.iso`, `${WS}/tools.iso`]);
  });

  it('keeps the same options array while nothing changes', async () => {
    const { actor, options } = startChooser();
    actor.send({ type: 'iso.listRequested' });
    await flush();
    expect(options()).toBe(options());
  });

  it('is empty and says the list is unavailable when the search fails, and retries when used again', async () => {
    const { actor, searches, options } = startChooser({
      reject: { status: 404, message: 'Not Found' },
    });
    actor.send({ type: 'iso.listRequested' });
    await flush();
    expect(options()).toEqual([]);
    expect(selectIsIsoListUnavailable(actor.getSnapshot())).toBe(true);
    actor.send({ type: 'iso.listRequested' });
    await flush();
    expect(searches).toHaveLength(2);
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(isoChooserMachine, {
        serializeState: (snapshot) => JSON.stringify(snapshot.value),
        inputs: [{ workspaceId: WS }],
      }),
    ).toEqual([]);
  });
});
