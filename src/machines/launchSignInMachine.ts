import { assign, fromPromise, setup, type ActorRefFrom, type SnapshotFrom } from 'xstate';
import { errorMessage } from '../domain/text';

// The launch links real TopoMojo clients hand out (wire reference §4.10, §7): the launchpoint
// /lp?t={ticket}&g={gamespace} (or ?c={code}, an invitation), and the console links
// /mks/?s=&v=&t= and /c?sessionId=&name=&token=. Their browser has no sign-in of ours: the
// one-time ticket, sent to POST user/login, sets the `topomojo.mks` console cookie of the player
// it was issued for, and every call of the page after that rides on the cookie.

/** What the link carries. */
export interface LaunchSignInInput {
  /** The one-time ticket (`t` or `token`); null when the link has none. */
  ticket: string | null;
  /** An invitation code (`c`): enlisting as a guest gives a gamespace and a ticket. */
  code: string | null;
  /** The gamespace the page is about (`g`, `s` or `sessionId`); null until enlisting gives it. */
  gamespaceId: string | null;
}

export interface LaunchSignInContext extends LaunchSignInInput {
  /** Why signing in failed for a reason other than a refused credential, shown with Retry. */
  error: string | null;
}

/** PUT player/enlist's answer: the guest's gamespace and ticket. */
export interface Enlistment {
  gamespaceId: string;
  token: string;
}

export type LaunchSignInEvent = { type: 'launch.retryRequested' };

const notProvided = (name: string): Error =>
  new Error(`launchSignInMachine: '${name}' is provided by the app (src/app)`);

/** 401: the server took no credential (a ticket used or expired, no cookie or an old one). */
const isUnauthorized = (error: unknown): boolean =>
  (error as { status?: unknown } | null)?.status === 401;

/**
 * The ticket was not taken: 401, or 429 when others at the same address (a classroom's NAT) have
 * had too many credentials refused, which the server says instead of 401 to a refused one only.
 */
const isTicketRefused = (error: unknown): boolean =>
  isUnauthorized(error) || (error as { status?: unknown } | null)?.status === 429;

/**
 * Signs a launch link's browser in. The ticket goes first; when the server refuses it (a ticket is
 * good once, and for 3 minutes) the cookie an earlier visit set is tried, so that reloading the
 * page or opening a machine's console from it still works. Refused both ways, the page says so
 * and offers the normal sign-in.
 */
export const launchSignInMachine = setup({
  types: {
    input: {} as LaunchSignInInput,
    context: {} as LaunchSignInContext,
    events: {} as LaunchSignInEvent,
    // 'busy': enlisting or signing in.
    tags: {} as 'busy',
  },
  actors: {
    /** PUT player/enlist {code} (anonymous). */
    enlist: fromPromise<Enlistment, { code: string }>(() => {
      throw notProvided('enlist');
    }),
    /** POST user/login with `Authorization: Ticket {ticket}`, or with the cookie alone (null). */
    signIn: fromPromise<void, { ticket: string | null }>(() => {
      throw notProvided('signIn');
    }),
  },
  actions: {
    /**
     * The ticket is spent: the address drops it (a reload then signs in by the cookie rather than
     * with a ticket the server no longer knows) and names the gamespace signed in to.
     */
    forgetTicket: (_, _params: { gamespaceId: string | null }) => {
      throw notProvided('forgetTicket');
    },
    recordError: assign({ error: (_, { error }: { error: unknown }) => errorMessage(error) }),
  },
  guards: {
    hasCode: ({ context }) => context.ticket === null && context.code !== null,
    hasTicket: ({ context }) => context.ticket !== null,
    isUnauthorized: (_, { error }: { error: unknown }) => isUnauthorized(error),
    isTicketRefused: (_, { error }: { error: unknown }) => isTicketRefused(error),
  },
}).createMachine({
  id: 'launchSignIn',
  description:
    'Signs a launch link in: an invitation code is enlisted first; the ticket is sent to POST user/login, and when it is refused the console cookie of an earlier visit is tried; refused both ways, the page says the link was used or has expired and offers the normal sign-in.',
  context: ({ input }) => ({ ...input, error: null }),
  initial: 'starting',
  states: {
    starting: {
      always: [
        { guard: 'hasCode', target: 'enlisting' },
        { guard: 'hasTicket', target: 'signingInWithTicket' },
        { target: 'signingInWithCookie' },
      ],
    },
    enlisting: {
      tags: ['busy'],
      invoke: {
        id: 'enlist',
        src: 'enlist',
        input: ({ context }) => ({ code: context.code ?? '' }),
        onDone: {
          target: 'signingInWithTicket',
          actions: assign({
            ticket: ({ event }) => event.output.token,
            gamespaceId: ({ event }) => event.output.gamespaceId,
          }),
        },
        // Any failure of a code reads 'Invalid invitation code.' (spec §8).
        onError: 'invitationRefused',
      },
    },
    signingInWithTicket: {
      tags: ['busy'],
      invoke: {
        id: 'signInWithTicket',
        src: 'signIn',
        input: ({ context }) => ({ ticket: context.ticket }),
        onDone: {
          target: 'signedIn',
          actions: {
            type: 'forgetTicket',
            params: ({ context }) => ({ gamespaceId: context.gamespaceId }),
          },
        },
        onError: [
          {
            guard: { type: 'isTicketRefused', params: ({ event }) => ({ error: event.error }) },
            target: 'signingInWithCookie',
          },
          {
            target: 'failed',
            actions: { type: 'recordError', params: ({ event }) => ({ error: event.error }) },
          },
        ],
      },
    },
    signingInWithCookie: {
      tags: ['busy'],
      invoke: {
        id: 'signInWithCookie',
        src: 'signIn',
        input: () => ({ ticket: null }),
        onDone: 'signedIn',
        onError: [
          {
            guard: { type: 'isUnauthorized', params: ({ event }) => ({ error: event.error }) },
            target: 'refused',
          },
          {
            target: 'failed',
            actions: { type: 'recordError', params: ({ event }) => ({ error: event.error }) },
          },
        ],
      },
    },
    /** The console cookie is set: the page may load. */
    signedIn: { type: 'final' },
    /** Neither the ticket nor a cookie was taken: the link was used or has expired. */
    refused: {},
    invitationRefused: {},
    /** Not a refusal (the network, the server): trying again may work. */
    failed: {
      on: {
        'launch.retryRequested': { target: 'starting', actions: assign({ error: null }) },
      },
    },
  },
});

export type LaunchSignInActorRef = ActorRefFrom<typeof launchSignInMachine>;
export type LaunchSignInSnapshot = SnapshotFrom<typeof launchSignInMachine>;
