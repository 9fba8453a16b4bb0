import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromPromise, type Actor } from 'xstate';
import {
  launchSignInMachine,
  type Enlistment,
  type LaunchSignInInput,
} from './launchSignInMachine';
import {
  selectCanRetryLaunch,
  selectLaunchGamespaceId,
  selectLaunchSignInError,
  selectLaunchSignInStatus,
} from './launchSignInMachine.selectors';
import { deferred, type Deferred } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';

const flush = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

const UNAUTHORIZED = { status: 401, message: 'Unauthorized' };
const OFFLINE = { status: 0, message: 'Failed to fetch' };

/** What the server says to each credential: the ticket's value, or null for the cookie. */
type Answers = Map<string | null, unknown>;

function start(
  input: Partial<LaunchSignInInput>,
  answers: Answers,
  enlistment: Enlistment | { reject: unknown } = { gamespaceId: 'g-1', token: 'tk-guest' },
) {
  const signIns: Array<string | null> = [];
  const enlisted: string[] = [];
  const forgotten: Array<string | null> = [];
  const actor = createActor(
    launchSignInMachine.provide({
      actors: {
        enlist: fromPromise<Enlistment, { code: string }>(async ({ input: { code } }) => {
          enlisted.push(code);
          if ('reject' in enlistment) throw enlistment.reject;
          return enlistment;
        }),
        signIn: fromPromise<void, { ticket: string | null }>(async ({ input: { ticket } }) => {
          signIns.push(ticket);
          const refusal = answers.get(ticket);
          if (refusal) throw refusal;
        }),
      },
      actions: { forgetTicket: (_, { gamespaceId }) => forgotten.push(gamespaceId) },
    }),
    { input: { ticket: null, code: null, gamespaceId: null, ...input } },
  ).start();
  return {
    actor,
    signIns,
    enlisted,
    forgotten,
    status: () => selectLaunchSignInStatus(actor.getSnapshot()),
  };
}

describe('launchSignInMachine', () => {
  it('signs in with the ticket once, then drops it from the address', async () => {
    const run = start({ ticket: 'tk-1', gamespaceId: 'g-1' }, new Map());
    expect(run.status()).toBe('busy');
    await flush();
    expect(run.signIns).toEqual(['tk-1']);
    expect(run.status()).toBe('signedIn');
    expect(run.forgotten).toEqual(['g-1']);
    expect(selectLaunchGamespaceId(run.actor.getSnapshot())).toBe('g-1');
  });

  it('falls back on the cookie when the ticket was used, without touching the address', async () => {
    const run = start(
      { ticket: 'tk-used', gamespaceId: 'g-1' },
      new Map([['tk-used', UNAUTHORIZED]]),
    );
    await flush();
    expect(run.signIns).toEqual(['tk-used', null]);
    expect(run.status()).toBe('signedIn');
    expect(run.forgotten).toEqual([]);
  });

  it('falls back on the cookie when a refused ticket is held back for its address (429)', async () => {
    const run = start(
      { ticket: 'tk-used', gamespaceId: 'g-1' },
      new Map([['tk-used', { status: 429, message: 'TooManyRequests' }]]),
    );
    await flush();
    expect(run.signIns).toEqual(['tk-used', null]);
    expect(run.status()).toBe('signedIn');
  });

  it('says the link was used when neither the ticket nor a cookie is taken', async () => {
    const run = start(
      { ticket: 'tk-used', gamespaceId: 'g-1' },
      new Map<string | null, unknown>([
        ['tk-used', UNAUTHORIZED],
        [null, UNAUTHORIZED],
      ]),
    );
    await flush();
    expect(run.status()).toBe('refused');
    expect(selectCanRetryLaunch(run.actor.getSnapshot())).toBe(false);
    expect(selectLaunchSignInError(run.actor.getSnapshot())).toBeNull();
  });

  it('signs in by the cookie alone when the link has no ticket (a console opened from the launch page)', async () => {
    const run = start({ gamespaceId: 'g-1' }, new Map());
    await flush();
    expect(run.signIns).toEqual([null]);
    expect(run.status()).toBe('signedIn');
  });

  it('enlists an invitation code, then signs in with the ticket it gives, for its gamespace', async () => {
    const run = start({ code: 'c0de' }, new Map());
    await flush();
    expect(run.enlisted).toEqual(['c0de']);
    expect(run.signIns).toEqual(['tk-guest']);
    expect(run.forgotten).toEqual(['g-1']);
    expect(selectLaunchGamespaceId(run.actor.getSnapshot())).toBe('g-1');
  });

  it('shows a refused invitation code as invalid, and signs nothing in', async () => {
    const run = start({ code: 'bad' }, new Map(), {
      reject: { status: 400, message: 'InvalidInvitation' },
    });
    await flush();
    expect(run.status()).toBe('invitationRefused');
    expect(run.signIns).toEqual([]);
  });

  it('offers Retry when signing in failed for another reason, and retries with the ticket', async () => {
    const answers: Answers = new Map([['tk-1', OFFLINE]]);
    const run = start({ ticket: 'tk-1', gamespaceId: 'g-1' }, answers);
    await flush();
    expect(run.status()).toBe('failed');
    expect(selectLaunchSignInError(run.actor.getSnapshot())).toBe(
      'The server could not be reached: check your connection and try again.',
    );
    expect(selectCanRetryLaunch(run.actor.getSnapshot())).toBe(true);
    answers.delete('tk-1');
    run.actor.send({ type: 'launch.retryRequested' });
    expect(selectLaunchSignInError(run.actor.getSnapshot())).toBeNull();
    await flush();
    expect(run.signIns).toEqual(['tk-1', 'tk-1']);
    expect(run.status()).toBe('signedIn');
  });

  it('fails with Retry when the cookie fallback fails for another reason', async () => {
    const run = start(
      { ticket: 'tk-used' },
      new Map<string | null, unknown>([
        ['tk-used', UNAUTHORIZED],
        [null, { status: 500, message: 'Error' }],
      ]),
    );
    await flush();
    expect(run.status()).toBe('failed');
    expect(selectLaunchSignInError(run.actor.getSnapshot())).toBe(
      'Something went wrong on the server. Try again; if it keeps happening, tell an administrator.',
    );
  });

  it('reaches every state from the links it is opened with', () => {
    expect(
      unreachedStateIds(launchSignInMachine, {
        serializeState: (s) => JSON.stringify(s.value),
        inputs: [
          { ticket: 't', code: null, gamespaceId: 'g' },
          { ticket: null, code: 'c', gamespaceId: null },
          { ticket: null, code: null, gamespaceId: 'g' },
        ],
        payloads: [
          { type: 'xstate.done.actor.enlist', output: { gamespaceId: 'g', token: 't' } },
          { type: 'xstate.error.actor.signInWithTicket', error: UNAUTHORIZED },
          { type: 'xstate.error.actor.signInWithTicket', error: OFFLINE },
          { type: 'xstate.error.actor.signInWithCookie', error: UNAUTHORIZED },
          { type: 'xstate.error.actor.signInWithCookie', error: OFFLINE },
        ],
      }),
    ).toEqual([]);
  });

  // The abstract model: what the server answers each step, and where the page ends up. Every path
  // is replayed on the real machine with the same answers.
  const model = createMachine({
    id: 'launchSignInModel',
    initial: 'ticket',
    states: {
      ticket: { on: { TICKET_TAKEN: 'signedIn', TICKET_REFUSED: 'cookie', OFFLINE: 'failed' } },
      cookie: { on: { COOKIE_TAKEN: 'signedIn', COOKIE_REFUSED: 'refused', OFFLINE: 'failed' } },
      failed: { on: { RETRIED: 'ticket' } },
      signedIn: {},
      refused: {},
    },
  });

  for (const path of modelPaths(model)) {
    it(`follows the server's answers: ${path.description}`, async () => {
      const steps = path.steps.slice(1).map((step) => step.event.type);
      const answers = steps.filter((s) => s !== 'RETRIED');
      const queue: unknown[] = answers.map((s) =>
        s === 'TICKET_REFUSED' || s === 'COOKIE_REFUSED'
          ? UNAUTHORIZED
          : s === 'OFFLINE'
            ? OFFLINE
            : null,
      );
      const signIns: Array<string | null> = [];
      const actor = createActor(
        launchSignInMachine.provide({
          actors: {
            signIn: fromPromise<void, { ticket: string | null }>(async ({ input }) => {
              signIns.push(input.ticket);
              // Past the path's last answer the call stays in flight.
              if (queue.length === 0) return new Promise<void>(() => undefined);
              const answer = queue.shift();
              if (answer) throw answer;
            }),
          },
          actions: { forgetTicket: () => undefined },
        }),
        { input: { ticket: 'tk', code: null, gamespaceId: 'g' } },
      ).start();
      for (const step of steps) {
        if (step === 'RETRIED') actor.send({ type: 'launch.retryRequested' });
        await flush();
      }
      const expected = path.state.value as string;
      const status = selectLaunchSignInStatus(actor.getSnapshot());
      expect(status).toBe(expected === 'ticket' || expected === 'cookie' ? 'busy' : expected);
    });
  }
});

/**
 * Model-based test of every link the page is opened with (a ticket, an invitation code, or
 * neither) and every answer of the server, each call answered by the test. A cookie tried after
 * a refused ticket is its own state: Retry then goes back to the ticket, not the cookie.
 */
describe('launchSignInMachine against its model', () => {
  type ModelEvent =
    | { type: 'OPENED_WITH_TICKET' }
    | { type: 'OPENED_WITH_CODE' }
    | { type: 'OPENED_WITHOUT_TICKET' }
    | { type: 'ENLISTED' }
    | { type: 'ENLIST_REFUSED' }
    | { type: 'TAKEN' }
    | { type: 'REFUSED' }
    | { type: 'OFFLINE' }
    | { type: 'RETRIED' };

  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'launchSignInLinkModel',
    initial: 'closed',
    states: {
      closed: {
        on: {
          OPENED_WITH_TICKET: 'ticket',
          OPENED_WITH_CODE: 'enlisting',
          OPENED_WITHOUT_TICKET: 'cookie',
        },
      },
      enlisting: { on: { ENLISTED: 'ticket', ENLIST_REFUSED: 'invitationRefused' } },
      ticket: {
        on: { TAKEN: 'signedIn', REFUSED: 'cookieAfterTicket', OFFLINE: 'failedWithTicket' },
      },
      cookieAfterTicket: {
        on: { TAKEN: 'signedIn', REFUSED: 'refused', OFFLINE: 'failedWithTicket' },
      },
      cookie: { on: { TAKEN: 'signedIn', REFUSED: 'refused', OFFLINE: 'failedWithoutTicket' } },
      failedWithTicket: { on: { RETRIED: 'ticket' } },
      failedWithoutTicket: { on: { RETRIED: 'cookie' } },
      signedIn: { type: 'final' },
      refused: {},
      invitationRefused: {},
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, launchSignInMachine, {
        states: {
          // Before the link is read: the machine's transient first state.
          closed: 'starting',
          enlisting: 'enlisting',
          ticket: 'signingInWithTicket',
          cookieAfterTicket: 'signingInWithCookie',
          cookie: 'signingInWithCookie',
          failedWithTicket: 'failed',
          failedWithoutTicket: 'failed',
          signedIn: 'signedIn',
          refused: 'refused',
          invitationRefused: 'invitationRefused',
        },
        events: {
          // The link is the machine's input, not an event.
          OPENED_WITH_TICKET: [],
          OPENED_WITH_CODE: [],
          OPENED_WITHOUT_TICKET: [],
          ENLISTED: 'xstate.done.actor.enlist',
          ENLIST_REFUSED: 'xstate.error.actor.enlist',
          TAKEN: ['xstate.done.actor.signInWithTicket', 'xstate.done.actor.signInWithCookie'],
          REFUSED: ['xstate.error.actor.signInWithTicket', 'xstate.error.actor.signInWithCookie'],
          OFFLINE: ['xstate.error.actor.signInWithTicket', 'xstate.error.actor.signInWithCookie'],
          RETRIED: 'launch.retryRequested',
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
      const enlistments: Deferred<Enlistment>[] = [];
      const signIns: Array<{ ticket: string | null; result: Deferred<void> }> = [];
      const forgotten: Array<string | null> = [];
      let actor: Actor<typeof launchSignInMachine> | null = null;
      const open = (input: Partial<LaunchSignInInput>) => {
        actor = createActor(
          launchSignInMachine.provide({
            actors: {
              enlist: fromPromise<Enlistment, { code: string }>(() => {
                const enlistment = deferred<Enlistment>();
                enlistments.push(enlistment);
                return enlistment.promise;
              }),
              signIn: fromPromise<void, { ticket: string | null }>(({ input: { ticket } }) => {
                const result = deferred<void>();
                signIns.push({ ticket, result });
                return result.promise;
              }),
            },
            actions: { forgetTicket: (_, { gamespaceId }) => forgotten.push(gamespaceId) },
          }),
          { input: { ticket: null, code: null, gamespaceId: null, ...input } },
        ).start();
      };
      /** The credentials the page is expected to have sent, in order. */
      const sent: Array<string | null> = [];
      let ticket: string | null = null;
      let gamespaceId: string | null = null;
      let current = 'closed';
      const expectPage =
        (state: string, status: string, credential?: () => string | null) => () => {
          if (credential && current !== state) sent.push(credential());
          current = state;
          const snapshot = actor?.getSnapshot();
          expect(snapshot && selectLaunchSignInStatus(snapshot)).toBe(status);
          expect(snapshot && selectCanRetryLaunch(snapshot)).toBe(status === 'failed');
          expect(snapshot && selectLaunchSignInError(snapshot)).toBe(
            status === 'failed'
              ? 'The server could not be reached: check your connection and try again.'
              : null,
          );
          expect(signIns.map((s) => s.ticket)).toEqual(sent);
          // Only a ticket taken is forgotten from the address.
          expect(forgotten).toEqual(
            state === 'signedIn' && sent.at(-1) !== null ? [gamespaceId] : [],
          );
        };
      const answer = async (outcome: 'ok' | 'refused' | 'offline') => {
        const call = signIns.at(-1)?.result;
        if (outcome === 'ok') call?.resolve();
        else call?.reject(outcome === 'refused' ? UNAUTHORIZED : OFFLINE);
        await flush();
      };
      await path.test({
        states: {
          closed: () => expect(actor).toBeNull(),
          enlisting: () => {
            expectPage('enlisting', 'busy')();
            expect(enlistments).toHaveLength(1);
          },
          ticket: expectPage('ticket', 'busy', () => ticket),
          cookieAfterTicket: expectPage('cookieAfterTicket', 'busy', () => null),
          cookie: expectPage('cookie', 'busy', () => null),
          failedWithTicket: expectPage('failedWithTicket', 'failed'),
          failedWithoutTicket: expectPage('failedWithoutTicket', 'failed'),
          signedIn: expectPage('signedIn', 'signedIn'),
          refused: expectPage('refused', 'refused'),
          invitationRefused: expectPage('invitationRefused', 'invitationRefused'),
        },
        events: {
          OPENED_WITH_TICKET: () => {
            ticket = 'tk';
            gamespaceId = 'g';
            open({ ticket, gamespaceId });
          },
          OPENED_WITH_CODE: () => open({ code: 'c0de' }),
          OPENED_WITHOUT_TICKET: () => {
            gamespaceId = 'g';
            open({ gamespaceId });
          },
          ENLISTED: async () => {
            ticket = 'tk-guest';
            gamespaceId = 'g-guest';
            enlistments.at(-1)?.resolve({ gamespaceId, token: ticket });
            await flush();
          },
          ENLIST_REFUSED: async () => {
            enlistments.at(-1)?.reject({ status: 400, message: 'InvalidInvitation' });
            await flush();
          },
          TAKEN: () => answer('ok'),
          REFUSED: () => answer('refused'),
          OFFLINE: () => answer('offline'),
          RETRIED: () => actor?.send({ type: 'launch.retryRequested' }),
        },
      });
    });
  }
});
