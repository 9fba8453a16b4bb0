import { describe, expect, it } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import { DEFAULT_TARGET_URL, oidcCallbackMachine } from './oidcCallbackMachine';
import {
  selectCallbackError,
  selectIsValidating,
  selectTargetUrl,
} from './oidcCallbackMachine.selectors';
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
