import { assign, fromPromise, not, setup, type ActorRefFrom, type SnapshotFrom } from 'xstate';
import { errorMessage } from '../domain/text';

/** The only OAuth response type the SPA accepts: authorization code with PKCE (spec §5). */
export const CODE_FLOW_RESPONSE_TYPE = 'code';

export const unsupportedResponseTypeMessage = (responseType: string): string =>
  `Login is only supported with the authorization-code flow (response type 'code'); ` +
  `the configured response type '${responseType}' is rejected.`;

export interface LoginInput {
  /** The identity client's configured response type. */
  responseType: string;
  /** Start the redirect as soon as the page opens (settings.oidc.autoLogin). */
  autoLogin: boolean;
  /**
   * An error from an earlier attempt (a failed callback). It is shown, and it stops auto-login
   * from sending the user straight back into the same failure.
   */
  previousError: string | null;
  /** Where to come back to after signing in; travels through the identity provider as `state`. */
  returnUrl: string;
}

export interface LoginContext {
  responseType: string;
  autoLogin: boolean;
  returnUrl: string;
  error: string | null;
}

export type LoginEvent = { type: 'login.requested' };

export const loginMachine = setup({
  types: {
    input: {} as LoginInput,
    context: {} as LoginContext,
    events: {} as LoginEvent,
    // 'busy': a login is under way; the button gives way to a spinner.
    tags: {} as 'busy',
  },
  actors: {
    /** Sends the browser to the identity provider (UserManager.signinRedirect). */
    startLogin: fromPromise<void, { returnUrl: string }>(() => {
      throw new Error('loginMachine: provide the startLogin actor');
    }),
  },
  guards: {
    isCodeFlow: ({ context }) => context.responseType === CODE_FLOW_RESPONSE_TYPE,
    canAutoLogin: ({ context }) => context.autoLogin && context.error === null,
  },
}).createMachine({
  id: 'login',
  description:
    'The login prompt: refuses any response type but code, starts the redirect to the identity provider on request (or by itself with auto-login unless an earlier attempt failed), and shows why a start failed.',
  context: ({ input }) => ({
    responseType: input.responseType,
    autoLogin: input.autoLogin,
    returnUrl: input.returnUrl,
    error: input.previousError,
  }),
  initial: 'checking',
  states: {
    checking: {
      always: [
        { guard: not('isCodeFlow'), target: 'rejected' },
        { guard: 'canAutoLogin', target: 'starting' },
        { target: 'idle' },
      ],
    },
    idle: {
      on: { 'login.requested': 'starting' },
    },
    /** A configuration error: no attempt can succeed, so the button is not offered. */
    rejected: {
      entry: assign({
        error: ({ context }) => unsupportedResponseTypeMessage(context.responseType),
      }),
    },
    starting: {
      tags: ['busy'],
      entry: assign({ error: null }),
      invoke: {
        id: 'startLogin',
        src: 'startLogin',
        input: ({ context }) => ({ returnUrl: context.returnUrl }),
        onDone: 'redirecting',
        onError: {
          target: 'failed',
          actions: assign({ error: ({ event }) => errorMessage(event.error) }),
        },
      },
    },
    /** The browser is leaving for the identity provider; nothing more happens on this page. */
    redirecting: {
      tags: ['busy'],
    },
    failed: {
      on: { 'login.requested': 'starting' },
    },
  },
});

export type LoginActorRef = ActorRefFrom<typeof loginMachine>;
export type LoginSnapshot = SnapshotFrom<typeof loginMachine>;
