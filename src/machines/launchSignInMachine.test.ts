import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromPromise } from 'xstate';
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
import { modelPaths } from './testing/modelPaths';
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
    expect(selectLaunchSignInError(run.actor.getSnapshot())).toBe('Failed to fetch');
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
    expect(selectLaunchSignInError(run.actor.getSnapshot())).toBe('Error');
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
