import { assign, fromPromise, setup, type ActorRefFrom, type SnapshotFrom } from 'xstate';
import { errorMessage } from '../domain/text';

/** Where a sign-in goes when it carried no return URL. */
export const DEFAULT_TARGET_URL = '/';

export interface OidcCallbackContext {
  targetUrl: string | null;
  error: string | null;
}

export const oidcCallbackMachine = setup({
  types: {
    context: {} as OidcCallbackContext,
  },
  actors: {
    /**
     * Completes the sign-in from the current URL (signinRedirectCallback, or
     * signinSilentCallback in the renew iframe) and resolves once the session is usable, with
     * the URL saved as `state` when login started (null when there was none).
     */
    completeSignin: fromPromise<string | null>(() => {
      throw new Error('oidcCallbackMachine: provide the completeSignin actor');
    }),
  },
  actions: {
    /** Leaves the callback page for the target URL. */
    navigateToTarget: (_, _params: { url: string }) => {
      throw new Error('oidcCallbackMachine: provide the navigateToTarget action');
    },
  },
}).createMachine({
  id: 'oidcCallback',
  description:
    'A sign-in callback page: completes the sign-in, then goes to the URL saved when login started (or the root), or shows why it failed.',
  context: { targetUrl: null, error: null },
  initial: 'validating',
  states: {
    validating: {
      invoke: {
        id: 'completeSignin',
        src: 'completeSignin',
        onDone: {
          target: 'succeeded',
          actions: [
            assign({ targetUrl: ({ event }) => event.output || DEFAULT_TARGET_URL }),
            {
              type: 'navigateToTarget',
              params: ({ event }) => ({ url: event.output || DEFAULT_TARGET_URL }),
            },
          ],
        },
        onError: {
          target: 'failed',
          actions: assign({ error: ({ event }) => errorMessage(event.error) }),
        },
      },
    },
    succeeded: { type: 'final' },
    failed: { type: 'final' },
  },
});

export type OidcCallbackActorRef = ActorRefFrom<typeof oidcCallbackMachine>;
export type OidcCallbackSnapshot = SnapshotFrom<typeof oidcCallbackMachine>;
