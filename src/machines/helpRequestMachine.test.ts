import { describe, expect, it } from 'vitest';
import { Subject } from 'rxjs';
import { createActor, createMachine, fromEventObservable, fromPromise } from 'xstate';
import type { HelpRequest } from '../api/help';
import type { HelpUpdatedEvent } from '../streams/help';
import { helpRequestMachine } from './helpRequestMachine';
import {
  selectCanCancelHelp,
  selectCanSendHelp,
  selectHelpError,
  selectHelpLine,
  selectHelpRequest,
  selectHelpView,
  selectIsHelpClaimed,
} from './helpRequestMachine.selectors';
import { deferred, flush, type Deferred } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';

let serial = 0;
/** An open request of gs-1, raised later than every one before it. */
function raised(fields: Partial<HelpRequest> = {}): HelpRequest {
  serial += 1;
  return {
    id: `h-${serial}`,
    gamespaceId: 'gs-1',
    workspaceId: 'ws-1',
    gamespaceName: 'Lab',
    playerId: 'p-1',
    playerName: 'Ann',
    message: 'The router will not boot.',
    status: 'open',
    raisedAt: new Date(Date.UTC(2026, 10, 30, 12, 0, serial)).toISOString(),
    ...fields,
  };
}
const claimedBy = (r: HelpRequest, name: string): HelpRequest => ({
  ...r,
  claimedById: `id-${name}`,
  claimedByName: name,
});
const answered = (r: HelpRequest): HelpRequest => ({
  ...claimedBy(r, 'Olga'),
  status: 'answered',
  answer: 'Check the second NIC.',
  answeredById: 'id-Olga',
  answeredByName: 'Olga',
});

function start() {
  const loads: Deferred<HelpRequest[]>[] = [];
  const raises: { input: { gamespaceId: string; message: string }; d: Deferred<HelpRequest> }[] =
    [];
  const cancels: { input: { id: string }; d: Deferred<HelpRequest> }[] = [];
  const heard = new Subject<HelpUpdatedEvent>();
  const actor = createActor(
    helpRequestMachine.provide({
      actors: {
        loadHelp: fromPromise(() => {
          const d = deferred<HelpRequest[]>();
          loads.push(d);
          return d.promise;
        }),
        raiseHelp: fromPromise(({ input }: { input: { gamespaceId: string; message: string } }) => {
          const d = deferred<HelpRequest>();
          raises.push({ input, d });
          return d.promise;
        }),
        cancelHelp: fromPromise(({ input }: { input: { id: string } }) => {
          const d = deferred<HelpRequest>();
          cancels.push({ input, d });
          return d.promise;
        }),
        helpUpdates: fromEventObservable(() => heard),
      },
    }),
    { input: { gamespaceId: 'gs-1' } },
  ).start();
  const snapshot = () => actor.getSnapshot();
  return {
    actor,
    loads,
    raises,
    cancels,
    snapshot,
    hear: (request: HelpRequest) => heard.next({ type: 'help.updated', request }),
    view: () => selectHelpView(snapshot()),
    line: () => selectHelpLine(snapshot()),
  };
}

describe('helpRequestMachine', () => {
  it('loads the gamespace requests and shows the open one as waiting', async () => {
    const h = start();
    expect(h.view()).toBe('loading');
    const open = raised();
    h.loads[0]!.resolve([answered(raised()), open]);
    await flush();
    expect(h.view()).toBe('open');
    expect(selectHelpRequest(h.snapshot())).toEqual(open);
    expect(h.line()).toBe('Waiting for someone');
    expect(selectCanCancelHelp(h.snapshot())).toBe(true);
  });

  it('sends the trimmed message, and only one that is not blank nor too long', async () => {
    const h = start();
    h.loads[0]!.resolve([]);
    await flush();
    expect(h.view()).toBe('idle');
    h.actor.send({ type: 'help.composeRequested' });
    h.actor.send({ type: 'help.draftChanged', text: '   ' });
    expect(selectCanSendHelp(h.snapshot())).toBe(false);
    h.actor.send({ type: 'help.draftChanged', text: 'x'.repeat(501) });
    expect(selectCanSendHelp(h.snapshot())).toBe(false);
    h.actor.send({ type: 'help.draftChanged', text: '  Stuck on step 2  ' });
    h.actor.send({ type: 'help.sendRequested' });
    expect(h.raises[0]!.input.message).toBe('Stuck on step 2');
    h.raises[0]!.d.resolve(raised({ message: 'Stuck on step 2' }));
    await flush();
    expect(h.view()).toBe('open');
    expect(h.snapshot().context.draft).toBe('');
  });

  it('keeps the message and says why when the raise fails', async () => {
    const h = start();
    h.loads[0]!.resolve([]);
    await flush();
    h.actor.send({ type: 'help.composeRequested' });
    h.actor.send({ type: 'help.draftChanged', text: 'Help' });
    h.actor.send({ type: 'help.sendRequested' });
    h.raises[0]!.d.reject({ status: 400, message: 'GamespaceIsExpired' });
    await flush();
    expect(h.view()).toBe('composing');
    expect(h.snapshot().context.draft).toBe('Help');
    expect(selectHelpError(h.snapshot())).toBe('This game has ended.');
  });

  it('follows the hub: someone on it, a take-over, then the answer', async () => {
    const h = start();
    const open = raised();
    h.loads[0]!.resolve([open]);
    await flush();
    h.hear(claimedBy(open, 'Olga'));
    expect(h.line()).toBe('Olga is on it');
    expect(selectIsHelpClaimed(h.snapshot())).toBe(true);
    h.hear(claimedBy(open, 'Admin'));
    expect(h.line()).toBe('Admin is on it');
    h.hear(answered(open));
    expect(h.view()).toBe('answered');
    expect(selectHelpRequest(h.snapshot())?.answer).toBe('Check the second NIC.');
  });

  it("ignores another gamespace's request and an older one of its own", async () => {
    const h = start();
    const older = raised();
    const open = raised();
    h.loads[0]!.resolve([open]);
    await flush();
    h.hear({ ...raised(), gamespaceId: 'gs-2', status: 'answered' });
    h.hear({ ...older, status: 'cancelled' });
    expect(selectHelpRequest(h.snapshot())).toEqual(open);
    expect(h.view()).toBe('open');
  });

  it('hears a request raised while it loads or while the player writes one', async () => {
    const h = start();
    const teammate = raised();
    h.hear(teammate);
    expect(h.view()).toBe('open');
    const h2 = start();
    h2.loads[0]!.resolve([]);
    await flush();
    h2.actor.send({ type: 'help.composeRequested' });
    h2.hear(teammate);
    expect(h2.view()).toBe('open');
  });

  it('cancels the open request; a cancel that fails leaves it open and says why', async () => {
    const h = start();
    const open = raised();
    h.loads[0]!.resolve([open]);
    await flush();
    h.actor.send({ type: 'help.cancelRequested' });
    expect(h.cancels[0]!.input.id).toBe(open.id);
    h.cancels[0]!.d.reject({ status: 400, message: 'InvalidOperation' });
    await flush();
    expect(h.view()).toBe('open');
    expect(selectHelpError(h.snapshot())).not.toBeNull();
    h.actor.send({ type: 'help.cancelRequested' });
    h.cancels[1]!.d.resolve({ ...open, status: 'cancelled' });
    await flush();
    expect(h.view()).toBe('idle');
    expect(selectHelpError(h.snapshot())).toBeNull();
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(helpRequestMachine, {
        serializeState: (s) =>
          JSON.stringify([s.value, (s as { context?: { draft?: string } }).context?.draft]),
        inputs: [{ gamespaceId: 'gs-1' }],
        payloads: [
          { type: 'help.draftChanged', text: 'Help' },
          { type: 'help.updated', request: raised() },
          { type: 'help.updated', request: claimedBy(raised(), 'Olga') },
          { type: 'help.updated', request: answered(raised()) },
        ],
      }),
    ).toEqual([]);
  });
});

/**
 * Model-based test: loading, writing and sending, the hub telling that someone is on it and the
 * answer, cancelling, and asking again after an answer. The view and its line are checked in
 * every state.
 */
describe('helpRequestMachine against its model', () => {
  type ModelEvent =
    | { type: 'LOADED_NONE' }
    | { type: 'LOADED_OPEN' }
    | { type: 'LOAD_FAILED' }
    | { type: 'COMPOSE' }
    | { type: 'BLANK_SEND' }
    | { type: 'SEND' }
    | { type: 'BACK' }
    | { type: 'RAISED' }
    | { type: 'RAISE_FAILED' }
    | { type: 'CLAIMED' }
    | { type: 'ANSWERED' }
    | { type: 'CANCEL' }
    | { type: 'CANCELLED' }
    | { type: 'CANCEL_FAILED' };

  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'helpRequestModel',
    initial: 'loading',
    states: {
      loading: { on: { LOADED_NONE: 'idle', LOADED_OPEN: 'waiting', LOAD_FAILED: 'idle' } },
      idle: { on: { COMPOSE: 'composing' } },
      composing: { on: { BLANK_SEND: 'composing', SEND: 'raising', BACK: 'idle' } },
      raising: { on: { RAISED: 'waiting', RAISE_FAILED: 'composing' } },
      waiting: { on: { CLAIMED: 'claimed', ANSWERED: 'answered', CANCEL: 'cancelling' } },
      claimed: { on: { CLAIMED: 'claimed', ANSWERED: 'answered' } },
      cancelling: { on: { CANCELLED: 'idle', CANCEL_FAILED: 'waiting' } },
      answered: { on: { COMPOSE: 'composingAgain' } },
      composingAgain: { on: { SEND: 'raising', BACK: 'answered' } },
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, helpRequestMachine, {
        states: {
          loading: 'loading',
          idle: 'idle',
          composing: 'composing',
          composingAgain: 'composing',
          raising: 'raising',
          waiting: 'open.waiting',
          claimed: 'open.claimed',
          cancelling: 'cancelling',
          answered: 'answered',
        },
        events: {
          LOADED_NONE: 'xstate.done.actor.0.helpRequest.loading',
          LOADED_OPEN: 'xstate.done.actor.0.helpRequest.loading',
          LOAD_FAILED: 'xstate.error.actor.0.helpRequest.loading',
          COMPOSE: 'help.composeRequested',
          BLANK_SEND: ['help.draftChanged', 'help.sendRequested'],
          SEND: ['help.draftChanged', 'help.sendRequested'],
          BACK: 'help.composeCancelled',
          RAISED: 'xstate.done.actor.0.helpRequest.raising',
          RAISE_FAILED: 'xstate.error.actor.0.helpRequest.raising',
          CLAIMED: 'help.updated',
          ANSWERED: 'help.updated',
          CANCEL: 'help.cancelRequested',
          CANCELLED: 'xstate.done.actor.0.helpRequest.cancelling',
          CANCEL_FAILED: 'xstate.error.actor.0.helpRequest.cancelling',
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
      const h = start();
      let current: HelpRequest | null = null;
      const expectView = (view: string, line: string | null) => {
        expect(h.view()).toBe(view);
        expect(h.line()).toBe(line);
      };
      await path.test({
        states: {
          loading: () => expectView('loading', null),
          idle: () => expect(h.view()).toBe('idle'),
          composing: () => expect(h.view()).toBe('composing'),
          composingAgain: () => expectView('composing', 'Answered by Olga'),
          raising: () => expect(h.view()).toBe('composing'),
          waiting: () => expectView('open', 'Waiting for someone'),
          claimed: () => expectView('open', `${current?.claimedByName} is on it`),
          cancelling: () => expect(h.view()).toBe('open'),
          answered: () => expectView('answered', 'Answered by Olga'),
        },
        events: {
          LOADED_NONE: async () => {
            h.loads[0]!.resolve([]);
            await flush();
          },
          LOADED_OPEN: async () => {
            current = raised();
            h.loads[0]!.resolve([current]);
            await flush();
          },
          LOAD_FAILED: async () => {
            h.loads[0]!.reject(new Error('offline'));
            await flush();
          },
          COMPOSE: () => h.actor.send({ type: 'help.composeRequested' }),
          BLANK_SEND: () => {
            h.actor.send({ type: 'help.draftChanged', text: ' ' });
            h.actor.send({ type: 'help.sendRequested' });
          },
          SEND: () => {
            h.actor.send({ type: 'help.draftChanged', text: 'Help me' });
            h.actor.send({ type: 'help.sendRequested' });
          },
          BACK: () => h.actor.send({ type: 'help.composeCancelled' }),
          RAISED: async () => {
            current = raised({ message: 'Help me' });
            h.raises.at(-1)!.d.resolve(current);
            await flush();
          },
          RAISE_FAILED: async () => {
            h.raises.at(-1)!.d.reject(new Error('offline'));
            await flush();
          },
          CLAIMED: () => {
            const name = current?.claimedByName === 'Olga' ? 'Admin' : 'Olga';
            current = claimedBy(current!, name);
            h.hear(current);
          },
          ANSWERED: () => {
            current = answered(current!);
            h.hear(current);
          },
          CANCEL: () => h.actor.send({ type: 'help.cancelRequested' }),
          CANCELLED: async () => {
            current = { ...current!, status: 'cancelled' };
            h.cancels.at(-1)!.d.resolve(current);
            await flush();
          },
          CANCEL_FAILED: async () => {
            h.cancels.at(-1)!.d.reject(new Error('offline'));
            await flush();
          },
        },
      });
    });
  }
});
