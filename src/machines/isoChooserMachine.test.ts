import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromPromise, SimulatedClock } from 'xstate';
import { ISO_SEARCH_DEBOUNCE_MS, isoChooserMachine } from './isoChooserMachine';
import {
  selectIsIsoListUnavailable,
  selectIsIsoSearching,
  selectIsoOptions,
} from './isoChooserMachine.selectors';
import { deferred, flush, type Deferred } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
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

/**
 * Model-based test: the chooser used as a template editor uses it (focus, typing, the workspace
 * toggle) with each search answered by the test and the debounce on a simulated clock. The test
 * keeps the searches it expects and the options shown.
 */
describe('isoChooserMachine against its model', () => {
  type ModelEvent =
    | { type: 'FOCUSED' }
    | { type: 'TYPED' }
    | { type: 'PAUSED' }
    | { type: 'TOGGLED' }
    | { type: 'LISTED' }
    | { type: 'FAILED' };

  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'isoChooserModel',
    initial: 'unused',
    states: {
      unused: { on: { FOCUSED: 'searching', TYPED: 'debouncing', TOGGLED: 'unused' } },
      debouncing: {
        on: {
          TYPED: 'debouncing',
          PAUSED: 'searching',
          TOGGLED: 'debouncing',
          FOCUSED: 'debouncing',
        },
      },
      searching: {
        on: {
          LISTED: 'listed',
          FAILED: 'unavailable',
          TYPED: 'debouncing',
          TOGGLED: 'searching',
          FOCUSED: 'searching',
        },
      },
      listed: { on: { TYPED: 'debouncing', TOGGLED: 'listed', FOCUSED: 'listed' } },
      unavailable: { on: { FOCUSED: 'searching', TYPED: 'debouncing', TOGGLED: 'unavailable' } },
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, isoChooserMachine, {
        states: {
          unused: 'unused',
          debouncing: 'debouncing',
          searching: 'searching',
          listed: 'listed',
          unavailable: 'unavailable',
        },
        events: {
          FOCUSED: 'iso.listRequested',
          TYPED: 'iso.termChanged',
          PAUSED: 'xstate.after.isoSearchDebounce.isoChooser.debouncing',
          TOGGLED: 'iso.localToggled',
          LISTED: 'xstate.done.actor.listIsos',
          FAILED: 'xstate.error.actor.listIsos',
        },
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
      const clock = new SimulatedClock();
      const searches: Array<{
        query: { term: string; local: boolean };
        result: Deferred<string[]>;
      }> = [];
      const actor = createActor(
        isoChooserMachine.provide({
          actors: {
            listIsos: fromPromise<string[], { workspaceId: string; term: string; local: boolean }>(
              ({ input }) => {
                const result = deferred<string[]>();
                searches.push({ query: { term: input.term, local: input.local }, result });
                return result.promise;
              },
            ),
          },
        }),
        { clock, input: { workspaceId: WS } },
      ).start();
      // Every path the server answers is the workspace's and contains the term typed, so that
      // the local filters keep it: what shows is what the last search found.
      const TERM = 'lab';
      let term = '';
      let local = false;
      let shown: string[] = [];
      const asked: Array<{ term: string; local: boolean }> = [];
      let current = 'unused';
      const expectChooser = (state: string, busy: boolean) => () => {
        if (state === 'searching' && current !== 'searching') asked.push({ term, local });
        current = state;
        const snapshot = actor.getSnapshot();
        expect(snapshot.value).toBe(state);
        expect(selectIsIsoSearching(snapshot)).toBe(busy);
        expect(selectIsIsoListUnavailable(snapshot)).toBe(state === 'unavailable');
        expect(selectIsoOptions(snapshot)).toEqual(shown);
        expect(searches.map((s) => s.query)).toEqual(asked);
      };
      await path.test({
        states: {
          unused: expectChooser('unused', false),
          debouncing: expectChooser('debouncing', true),
          searching: expectChooser('searching', true),
          listed: expectChooser('listed', false),
          unavailable: expectChooser('unavailable', false),
        },
        events: {
          FOCUSED: () => actor.send({ type: 'iso.listRequested' }),
          TYPED: () => {
            term = TERM;
            actor.send({ type: 'iso.termChanged', term });
          },
          PAUSED: () => clock.increment(ISO_SEARCH_DEBOUNCE_MS),
          TOGGLED: () => {
            local = !local;
            actor.send({ type: 'iso.localToggled' });
          },
          LISTED: async () => {
            shown = [`${WS}/${TERM}-${searches.length}.iso`];
            searches.at(-1)?.result.resolve(shown);
            await flush();
          },
          FAILED: async () => {
            shown = [];
            searches.at(-1)?.result.reject({ status: 404, message: 'Not Found' });
            await flush();
          },
        },
      });
    });
  }
});
