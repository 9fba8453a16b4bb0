import { describe, expect, it } from 'vitest';
import { createActor, fromPromise, SimulatedClock } from 'xstate';
import { COPY_CONFIRMATION_MS, invitationMachine } from './invitationMachine';
import {
  selectCanCopy,
  selectCanGenerate,
  selectInvitationError,
  selectInvitationLink,
  selectIsGenerating,
  selectShowCopied,
} from './invitationMachine.selectors';
import { flush } from './testing/deferred';
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
    expect(selectInvitationError(actor.getSnapshot())).toBe('Action Forbidden');
    expect(link()).toBeNull();
    actor.send(generate);
    await flush();
    expect(selectInvitationError(actor.getSnapshot())).toBeNull();
    actor.send(generate);
    await flush();
    expect(selectInvitationError(actor.getSnapshot())).toBe('Failed to fetch');
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
