import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromPromise, SimulatedClock } from 'xstate';
import { COPY_CONFIRMATION_MS, invitationMachine } from './invitationMachine';
import {
  selectCanCopy,
  selectCanGenerate,
  selectInvitationError,
  selectInvitationLink,
  selectIsGenerating,
  selectShowCopied,
} from './invitationMachine.selectors';
import { deferred, flush, type Deferred } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';

/** Each generation answers the next outcome: a code, or a rejection reason. */
function startInvitation(codes: Array<string | { reject: unknown }>, copy: 'ok' | 'fail' = 'ok') {
  const clock = new SimulatedClock();
  const copied: string[] = [];
  let generated = 0;
  const actor = createActor(
    invitationMachine.provide({
      actors: {
        generateInvitation: fromPromise<{ code: string }, { workspaceId: string }>(async () => {
          const outcome = codes[generated++];
          if (outcome === undefined) throw new Error('unexpected call');
          if (typeof outcome !== 'string') throw outcome.reject;
          return { code: outcome };
        }),
        copyToClipboard: fromPromise<void, { text: string }>(async ({ input }) => {
          if (copy === 'fail') throw new DOMException('Denied', 'NotAllowedError');
          copied.push(input.text);
        }),
      },
    }),
    { clock, input: { workspaceId: 'ws-1', origin: 'https://topoplay.test' } },
  ).start();
  const link = () => selectInvitationLink(actor.getSnapshot());
  return { actor, clock, copied, link, generated: () => generated };
}

const generate = { type: 'invitation.generateRequested' } as const;
const copy = { type: 'invitation.copyRequested' } as const;

describe('invitationMachine', () => {
  it('shows no link until one is generated, then {origin}/topo/{id}/invite/{code}', async () => {
    const { actor, link } = startInvitation(['c0de']);
    expect(link()).toBeNull();
    expect(selectCanCopy(actor.getSnapshot())).toBe(false);
    actor.send(generate);
    expect(selectIsGenerating(actor.getSnapshot())).toBe(true);
    expect(selectCanGenerate(actor.getSnapshot())).toBe(false);
    await flush();
    expect(link()).toBe('https://topoplay.test/topo/ws-1/invite/c0de');
    expect(selectCanCopy(actor.getSnapshot())).toBe(true);
  });

  it('replaces the link when generated again', async () => {
    const { actor, link, generated } = startInvitation(['first', 'second']);
    actor.send(generate);
    actor.send(generate);
    await flush();
    expect(generated()).toBe(1);
    actor.send(generate);
    await flush();
    expect(link()).toBe('https://topoplay.test/topo/ws-1/invite/second');
  });

  it('copies the link and confirms it for COPY_CONFIRMATION_MS', async () => {
    const { actor, clock, copied } = startInvitation(['c0de']);
    actor.send(generate);
    await flush();
    actor.send(copy);
    await flush();
    expect(copied).toEqual(['https://topoplay.test/topo/ws-1/invite/c0de']);
    expect(selectShowCopied(actor.getSnapshot())).toBe(true);
    clock.increment(COPY_CONFIRMATION_MS - 1);
    expect(selectShowCopied(actor.getSnapshot())).toBe(true);
    clock.increment(1);
    expect(selectShowCopied(actor.getSnapshot())).toBe(false);
    expect(COPY_CONFIRMATION_MS).toBe(4_000);
  });

  it('hides the confirmation when a new link replaces the copied one', async () => {
    const { actor, link } = startInvitation(['first', 'second']);
    actor.send(generate);
    await flush();
    actor.send(copy);
    await flush();
    actor.send(generate);
    expect(selectShowCopied(actor.getSnapshot())).toBe(false);
    await flush();
    expect(link()).toBe('https://topoplay.test/topo/ws-1/invite/second');
  });

  it('says so when the clipboard refuses, and keeps the link', async () => {
    const { actor, link } = startInvitation(['c0de'], 'fail');
    actor.send(generate);
    await flush();
    actor.send(copy);
    await flush();
    expect(selectShowCopied(actor.getSnapshot())).toBe(false);
    expect(selectInvitationError(actor.getSnapshot())).toBe(
      'The link could not be copied: select it and copy it.',
    );
    expect(link()).not.toBeNull();
  });

  it('shows why generating failed, keeping the previous link if there was one', async () => {
    const { actor, link } = startInvitation([
      { reject: { status: 403, message: 'ActionForbidden' } },
      'c0de',
      { reject: { status: 0, message: 'Failed to fetch' } },
    ]);
    actor.send(generate);
    await flush();
    expect(selectInvitationError(actor.getSnapshot())).toBe('You are not allowed to do this.');
    expect(link()).toBeNull();
    actor.send(generate);
    await flush();
    expect(selectInvitationError(actor.getSnapshot())).toBeNull();
    actor.send(generate);
    await flush();
    expect(selectInvitationError(actor.getSnapshot())).toBe(
      'The server could not be reached: check your connection and try again.',
    );
    expect(link()).toBe('https://topoplay.test/topo/ws-1/invite/c0de');
    expect(selectCanCopy(actor.getSnapshot())).toBe(true);
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(invitationMachine, {
        serializeState: (snapshot) => JSON.stringify(snapshot.value),
        inputs: [{ workspaceId: 'ws-1', origin: 'https://topoplay.test' }],
      }),
    ).toEqual([]);
  });
});

/**
 * Model-based test: Generate and Copy (spec §4 "Invitations") with every call answered by the
 * test, a new code asked for at any moment, and the confirmation's time on a simulated clock.
 * `generating` has no code to fall back on; `regenerating` keeps showing the previous one.
 */
describe('invitationMachine against its model', () => {
  type ModelEvent =
    | { type: 'GENERATE' }
    | { type: 'GENERATED' }
    | { type: 'GENERATE_FAILED' }
    | { type: 'COPY' }
    | { type: 'COPIED' }
    | { type: 'COPY_FAILED' }
    | { type: 'CONFIRMATION_ELAPSED' };

  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'invitationModel',
    initial: 'idle',
    states: {
      idle: { on: { GENERATE: 'generating', COPY: 'idle' } },
      generating: {
        on: {
          GENERATE: 'generating',
          GENERATED: 'shown',
          GENERATE_FAILED: 'idle',
          COPY: 'generating',
        },
      },
      regenerating: {
        on: { GENERATE: 'regenerating', GENERATED: 'shown', GENERATE_FAILED: 'shown' },
      },
      shown: { on: { GENERATE: 'regenerating', COPY: 'copying' } },
      copying: { on: { COPIED: 'copied', COPY_FAILED: 'shown', GENERATE: 'regenerating' } },
      copied: { on: { CONFIRMATION_ELAPSED: 'shown', COPY: 'copying', GENERATE: 'regenerating' } },
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, invitationMachine, {
        states: {
          idle: 'idle',
          generating: 'generating',
          regenerating: 'generating',
          shown: 'shown',
          copying: 'copying',
          copied: 'copied',
        },
        events: {
          GENERATE: 'invitation.generateRequested',
          GENERATED: 'xstate.done.actor.generateInvitation',
          GENERATE_FAILED: 'xstate.error.actor.generateInvitation',
          COPY: 'invitation.copyRequested',
          COPIED: 'xstate.done.actor.copyToClipboard',
          COPY_FAILED: 'xstate.error.actor.copyToClipboard',
          CONFIRMATION_ELAPSED: 'xstate.after.copyConfirmation.invitation.copied',
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
      const generations: Deferred<{ code: string }>[] = [];
      const copies: Array<{ text: string; result: Deferred<void> }> = [];
      const actor = createActor(
        invitationMachine.provide({
          actors: {
            generateInvitation: fromPromise<{ code: string }, { workspaceId: string }>(() => {
              const generation = deferred<{ code: string }>();
              generations.push(generation);
              return generation.promise;
            }),
            copyToClipboard: fromPromise<void, { text: string }>(({ input }) => {
              const result = deferred<void>();
              copies.push({ text: input.text, result });
              return result.promise;
            }),
          },
        }),
        { clock, input: { workspaceId: 'ws-1', origin: 'https://topoplay.test' } },
      ).start();
      let code: string | null = null;
      let error: string | null = null;
      let generationsExpected = 0;
      /** The link of each copy expected so far. */
      const copiesExpected: Array<string | null> = [];
      let current = 'idle';
      const linkOf = (c: string | null) =>
        c === null ? null : `https://topoplay.test/topo/ws-1/invite/${c}`;
      const expectInvitation =
        (state: string, busy: boolean, canCopy: boolean, copied = false) =>
        () => {
          if (current !== state && (state === 'generating' || state === 'regenerating')) {
            generationsExpected += 1;
            error = null;
          }
          if (current !== 'copying' && state === 'copying') {
            copiesExpected.push(linkOf(code));
            error = null;
          }
          current = state;
          const snapshot = actor.getSnapshot();
          expect(selectIsGenerating(snapshot)).toBe(busy);
          expect(selectCanGenerate(snapshot)).toBe(!busy);
          expect(selectCanCopy(snapshot)).toBe(canCopy);
          expect(selectShowCopied(snapshot)).toBe(copied);
          expect(selectInvitationLink(snapshot)).toBe(linkOf(code));
          expect(selectInvitationError(snapshot)).toBe(error);
          expect(generations).toHaveLength(generationsExpected);
          expect(copies.map((c) => c.text)).toEqual(copiesExpected);
        };
      await path.test({
        states: {
          idle: expectInvitation('idle', false, false),
          generating: expectInvitation('generating', true, false),
          regenerating: expectInvitation('regenerating', true, false),
          shown: expectInvitation('shown', false, true),
          copying: expectInvitation('copying', false, false),
          copied: expectInvitation('copied', false, true, true),
        },
        events: {
          GENERATE: () => actor.send(generate),
          GENERATED: async () => {
            code = `code-${generations.length}`;
            generations.at(-1)?.resolve({ code });
            await flush();
          },
          GENERATE_FAILED: async () => {
            error = 'You are not allowed to do this.';
            generations.at(-1)?.reject({ status: 403, message: 'ActionForbidden' });
            await flush();
          },
          COPY: () => actor.send(copy),
          COPIED: async () => {
            copies.at(-1)?.result.resolve();
            await flush();
          },
          COPY_FAILED: async () => {
            error = 'The link could not be copied: select it and copy it.';
            copies.at(-1)?.result.reject(new DOMException('Denied', 'NotAllowedError'));
            await flush();
          },
          CONFIRMATION_ELAPSED: () => clock.increment(COPY_CONFIRMATION_MS),
        },
      });
    });
  }
});
