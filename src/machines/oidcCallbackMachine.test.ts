import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromPromise } from 'xstate';
import { DEFAULT_TARGET_URL, oidcCallbackMachine } from './oidcCallbackMachine';
import {
  selectCallbackError,
  selectIsValidating,
  selectTargetUrl,
} from './oidcCallbackMachine.selectors';
import { deferred } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';

const flush = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

function startCallback(outcome: string | null | Error) {
  const navigations: string[] = [];
  const actor = createActor(
    oidcCallbackMachine.provide({
      actors: {
        completeSignin: fromPromise<string | null>(async () => {
          if (outcome instanceof Error) throw outcome;
          return outcome;
        }),
      },
      actions: { navigateToTarget: (_, { url }) => navigations.push(url) },
    }),
  ).start();
  return { actor, navigations };
}

describe('oidcCallbackMachine', () => {
  it('validates the token first', () => {
    const { actor, navigations } = startCallback('/about');
    expect(selectIsValidating(actor.getSnapshot())).toBe(true);
    expect(navigations).toEqual([]);
  });

  it('goes to the URL saved when login started', async () => {
    const { actor, navigations } = startCallback('/topo/ws-1/settings');
    await flush();
    expect(actor.getSnapshot().value).toBe('succeeded');
    expect(selectTargetUrl(actor.getSnapshot())).toBe('/topo/ws-1/settings');
    expect(navigations).toEqual(['/topo/ws-1/settings']);
  });

  it('goes to the root when no URL was saved', async () => {
    const { navigations } = startCallback(null);
    await flush();
    expect(navigations).toEqual([DEFAULT_TARGET_URL]);
    expect(DEFAULT_TARGET_URL).toBe('/');
  });

  it('shows the error message on failure and stays on the page', async () => {
    const { actor, navigations } = startCallback(new Error('No matching state found in storage'));
    await flush();
    const snapshot = actor.getSnapshot();
    expect(snapshot.value).toBe('failed');
    expect(selectIsValidating(snapshot)).toBe(false);
    expect(selectCallbackError(snapshot)).toBe('No matching state found in storage');
    expect(navigations).toEqual([]);
  });

  it('shows an identity provider error response as sent', async () => {
    const { actor } = startCallback(
      Object.assign(new Error('access_denied'), { error: 'access_denied' }),
    );
    await flush();
    expect(selectCallbackError(actor.getSnapshot())).toBe('access_denied');
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(oidcCallbackMachine, { serializeState: (s) => JSON.stringify(s.value) }),
    ).toEqual([]);
  });
});

/**
 * Model-based test: the callback page's three outcomes, with the sign-in completed by the test,
 * checking where the page goes and what it shows.
 */
describe('oidcCallbackMachine against its model', () => {
  type ModelEvent =
    { type: 'RETURNED_WITH_URL' } | { type: 'RETURNED_WITHOUT_URL' } | { type: 'FAILED' };

  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'oidcCallbackModel',
    initial: 'validating',
    states: {
      validating: {
        on: { RETURNED_WITH_URL: 'succeeded', RETURNED_WITHOUT_URL: 'succeeded', FAILED: 'failed' },
      },
      succeeded: { type: 'final' },
      failed: { type: 'final' },
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, oidcCallbackMachine, {
        states: { validating: 'validating', succeeded: 'succeeded', failed: 'failed' },
        events: {
          RETURNED_WITH_URL: 'xstate.done.actor.completeSignin',
          RETURNED_WITHOUT_URL: 'xstate.done.actor.completeSignin',
          FAILED: 'xstate.error.actor.completeSignin',
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
      const signin = deferred<string | null>();
      const navigations: string[] = [];
      const actor = createActor(
        oidcCallbackMachine.provide({
          actors: { completeSignin: fromPromise<string | null>(() => signin.promise) },
          actions: { navigateToTarget: (_, { url }) => navigations.push(url) },
        }),
      ).start();
      let target: string | null = null;
      await path.test({
        states: {
          validating: () => {
            expect(selectIsValidating(actor.getSnapshot())).toBe(true);
            expect(navigations).toEqual([]);
          },
          succeeded: () => {
            expect(actor.getSnapshot().status).toBe('done');
            expect(selectTargetUrl(actor.getSnapshot())).toBe(target);
            expect(navigations).toEqual([target]);
          },
          failed: () => {
            expect(selectIsValidating(actor.getSnapshot())).toBe(false);
            expect(selectCallbackError(actor.getSnapshot())).toBe('login_required');
            expect(navigations).toEqual([]);
          },
        },
        events: {
          RETURNED_WITH_URL: async () => {
            target = '/topo/ws-1';
            signin.resolve(target);
            await flush();
          },
          RETURNED_WITHOUT_URL: async () => {
            target = DEFAULT_TARGET_URL;
            signin.resolve(null);
            await flush();
          },
          FAILED: async () => {
            signin.reject(new Error('login_required'));
            await flush();
          },
        },
      });
    });
  }
});
