import { Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import {
  createActor,
  createMachine,
  fromCallback,
  fromEventObservable,
  fromPromise,
  SimulatedClock,
  type EventObject,
} from 'xstate';
import type { AgentPresence, Dispatch, DispatchLog, NewDispatch } from '../api/dispatch';
import type { DispatchRecordEvent } from '../streams/dispatches';
import { dispatcherConsoleMachine, LOG_REFRESH_MS } from './dispatcherConsoleMachine';
import {
  agentLabel,
  agentsFor,
  dispatchLine,
  selectAgents,
  selectCanSendDispatch,
  selectDispatchDraft,
  selectDispatcherError,
  selectDispatches,
  selectIsLoadingDispatches,
  selectIsSendingDispatch,
  waitingNote,
} from './dispatcherConsoleMachine.selectors';
import { deferred, flush, type Deferred } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';

const NEVER = '0001-01-01T00:00:00+00:00';
const dispatch = (id: string, fields: Partial<Dispatch> = {}): Dispatch => ({
  id,
  trigger: 'hostname',
  targetGroup: 'gs-1',
  targetName: 'vm1',
  result: null,
  error: null,
  whenCreated: '2025-01-01T10:00:00Z',
  whenUpdated: NEVER,
  ...fields,
});

/** What GET dispatches (and GET dispatches/agents) answer. */
const log = (entries: Dispatch[], agents: AgentPresence[] | null = null): DispatchLog => ({
  entries,
  agents,
});

function startConsole() {
  const clock = new SimulatedClock();
  const loads: Deferred<DispatchLog>[] = [];
  const sends: Array<{ body: NewDispatch; answer: Deferred<Dispatch> }> = [];
  const channels: string[] = [];
  const left: string[] = [];
  const heard = new Subject<DispatchRecordEvent>();
  const actor = createActor(
    dispatcherConsoleMachine.provide({
      actors: {
        loadDispatches: fromPromise<DispatchLog, { gamespaceId: string }>(() => {
          const d = deferred<DispatchLog>();
          loads.push(d);
          return d.promise;
        }),
        sendDispatch: fromPromise<Dispatch, NewDispatch>(({ input }) => {
          const answer = deferred<Dispatch>();
          sends.push({ body: input, answer });
          return answer.promise;
        }),
        listenToChannel: fromCallback<EventObject, { channelId: string }>(({ input }) => {
          channels.push(input.channelId);
          return () => left.push(input.channelId);
        }),
        dispatchEvents: fromEventObservable(() => heard),
      },
    }),
    { input: { gamespaceId: 'gs-1' }, clock },
  ).start();
  const type = (text: string) => actor.send({ type: 'dispatcher.draftChanged', text });
  const send = () => actor.send({ type: 'dispatcher.sendRequested' });
  return {
    actor,
    clock,
    loads,
    sends,
    channels,
    left,
    heard,
    type,
    send,
    snap: () => actor.getSnapshot(),
  };
}

describe('dispatcherConsoleMachine', () => {
  it("listens on the gamespace's channel while open and loads its dispatches", async () => {
    const c = startConsole();
    expect(c.channels).toEqual(['gs-1']);
    expect(selectIsLoadingDispatches(c.snap())).toBe(true);
    c.loads[0]!.resolve(log([dispatch('d-1')]));
    await flush();
    expect(selectDispatches(c.snap()).map((d) => d.id)).toEqual(['d-1']);
    c.actor.stop();
    expect(c.left).toEqual(['gs-1']);
  });

  it('sends the parsed command to the gamespace and clears the input', async () => {
    const c = startConsole();
    c.loads[0]!.resolve(log([]));
    await flush();
    c.type('  [vm1] hostname  ');
    c.send();
    expect(c.sends.map((s) => s.body)).toEqual([
      { targetGroup: 'gs-1', targetName: 'vm1', trigger: 'hostname' },
    ]);
    expect(selectDispatchDraft(c.snap())).toBe('');
    expect(selectIsSendingDispatch(c.snap())).toBe(true);
    c.sends[0]!.answer.resolve(dispatch('d-9'));
    await flush();
    expect(selectDispatches(c.snap()).map((d) => d.id)).toEqual(['d-9']);
    c.type('uptime');
    c.send();
    expect(c.sends[1]!.body).toEqual({ targetGroup: 'gs-1', targetName: null, trigger: 'uptime' });
  });

  it('sends nothing for an empty command or a target alone', async () => {
    const c = startConsole();
    c.loads[0]!.resolve(log([]));
    await flush();
    for (const text of ['', '   ', '[vm1]']) {
      c.type(text);
      expect(selectCanSendDispatch(c.snap())).toBe(false);
      c.send();
    }
    expect(c.sends).toEqual([]);
    expect(selectDispatchDraft(c.snap())).toBe('[vm1]');
  });

  it('gives the command back with the reason when sending fails', async () => {
    const c = startConsole();
    c.loads[0]!.resolve(log([]));
    await flush();
    c.type('[vm1] hostname');
    c.send();
    c.sends[0]!.answer.reject({ status: 403, message: 'ActionForbidden' });
    await flush();
    expect(selectDispatchDraft(c.snap())).toBe('[vm1] hostname');
    expect(selectDispatcherError(c.snap())).toBe('You are not allowed to do this.');
  });

  it('follows live events: appends, updates only when newer, removes on delete', async () => {
    const c = startConsole();
    c.loads[0]!.resolve(log([dispatch('d-1')]));
    await flush();
    c.heard.next({ type: 'dispatch.created', dispatch: dispatch('d-2', { targetName: null }) });
    const answer = { result: 'vm1\n', whenUpdated: '2025-01-01T10:00:05Z' };
    c.heard.next({ type: 'dispatch.updated', dispatch: dispatch('d-1', answer) });
    c.heard.next({
      type: 'dispatch.updated',
      dispatch: dispatch('d-1', { result: 'stale', whenUpdated: '2025-01-01T10:00:01Z' }),
    });
    const lines = selectDispatches(c.snap()).map(dispatchLine);
    expect(lines.map((l) => [l.id, l.target, l.result, l.answeredAt])).toEqual([
      ['d-1', 'vm1', 'vm1\n', '2025-01-01T10:00:05Z'],
      ['d-2', 'all', '', null],
    ]);
    c.heard.next({ type: 'dispatch.deleted', id: 'd-1' });
    expect(selectDispatches(c.snap()).map((d) => d.id)).toEqual(['d-2']);
  });

  it('says why the log could not load, and loads again on refresh', async () => {
    const c = startConsole();
    c.loads[0]!.reject({ status: 0, message: 'Failed to fetch' });
    await flush();
    expect(selectDispatcherError(c.snap())).not.toBeNull();
    c.actor.send({ type: 'dispatcher.refreshRequested' });
    expect(c.loads).toHaveLength(2);
  });

  it('loads the log and who listens again every 5 s, so that a console without the channel follows', async () => {
    const c = startConsole();
    c.loads[0]!.resolve(log([dispatch('d-1')], [{ name: 'vm1', isMachine: true, agents: 0 }]));
    await flush();
    expect(selectAgents(c.snap())).toEqual([{ name: 'vm1', isMachine: true, agents: 0 }]);
    c.clock.increment(LOG_REFRESH_MS - 1);
    expect(c.loads).toHaveLength(1);
    c.clock.increment(1);
    expect(c.loads).toHaveLength(2);
    // The log stays on screen while it loads again.
    expect(selectDispatches(c.snap()).map((d) => d.id)).toEqual(['d-1']);
    const answered = dispatch('d-1', { result: 'vm1', whenUpdated: '2025-01-01T10:00:05Z' });
    c.loads[1]!.resolve(log([answered], [{ name: 'vm1', isMachine: true, agents: 1 }]));
    await flush();
    expect(selectDispatches(c.snap())[0]?.result).toBe('vm1');
    expect(selectAgents(c.snap())?.[0]?.agents).toBe(1);
  });

  it('says when a command waits because no agent listens where it went', () => {
    const agents: AgentPresence[] = [
      { name: 'db', isMachine: true, agents: 0 },
      { name: 'vm1', isMachine: true, agents: 1 },
    ];
    const waiting = (target: string | null, list = agents) =>
      waitingNote(list, dispatchLine(dispatch('d', { targetName: target })));
    expect(waiting('db')).toBe('waiting: no agent is listening on db');
    expect(waiting('VM1')).toBe('waiting');
    expect(waiting(null)).toBe('waiting');
    expect(waiting(null, [agents[0]!])).toBe('waiting: no agent is listening');
    // An agent that named no host may be the one on db; a server that cannot say says nothing.
    const unnamed: AgentPresence[] = [...agents, { name: null, isMachine: false, agents: 2 }];
    expect(agentsFor(unnamed, 'db')).toBe('unknown');
    expect(waiting('db', unnamed)).toBe('waiting');
    expect(agentsFor(null, 'db')).toBeNull();
    expect(agentLabel(agents[0]!)).toBe('db: no agent');
    expect(agentLabel(agents[1]!)).toBe('vm1: an agent listening');
    expect(agentLabel(unnamed[2]!)).toBe(
      '2 agents without a host name (they answer commands for every host)',
    );
    expect(agentLabel({ name: 'kali', isMachine: false, agents: 1 })).toBe(
      'kali: an agent listening, on no machine of this game',
    );
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(dispatcherConsoleMachine, {
        // Whether something is typed decides whether Send goes anywhere.
        serializeState: (s) =>
          JSON.stringify([s.value, (s as { context?: { draft?: string } }).context?.draft]),
        inputs: [{ gamespaceId: 'gs-1' }],
        payloads: [{ type: 'dispatcher.draftChanged', text: '[vm1] hostname' }],
      }),
    ).toEqual([]);
  });
});

/**
 * Model-based test: loading, typing, sending (cleared, given back on failure) and the live
 * events, checking what the view reads in each state.
 */
describe('dispatcherConsoleMachine against its model', () => {
  type ModelEvent =
    | { type: 'LOADED' }
    | { type: 'LOAD_FAILED' }
    | { type: 'REFRESH' }
    | { type: 'REFRESH_DUE' }
    | { type: 'TYPED' }
    | { type: 'SEND' }
    | { type: 'SENT' }
    | { type: 'SEND_FAILED' }
    | { type: 'HEARD' }
    | { type: 'DELETED' };

  // Typing and live events change the context, never the mode.
  const live = (state: string) => ({ TYPED: state, HEARD: state, DELETED: state });
  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'dispatcherConsoleModel',
    initial: 'loading',
    states: {
      loading: { on: { LOADED: 'ready', LOAD_FAILED: 'ready', ...live('loading') } },
      ready: {
        on: { SEND: 'sending', REFRESH: 'loading', REFRESH_DUE: 'loading', ...live('ready') },
      },
      sending: { on: { SENT: 'ready', SEND_FAILED: 'ready', ...live('sending') } },
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, dispatcherConsoleMachine, {
        states: { loading: 'loading', ready: 'ready', sending: 'sending' },
        events: {
          LOADED: 'xstate.done.actor.loadDispatches',
          LOAD_FAILED: 'xstate.error.actor.loadDispatches',
          REFRESH: 'dispatcher.refreshRequested',
          REFRESH_DUE: 'xstate.after.logRefresh.dispatcherConsole.ready',
          TYPED: 'dispatcher.draftChanged',
          SEND: 'dispatcher.sendRequested',
          SENT: 'xstate.done.actor.sendDispatch',
          SEND_FAILED: 'xstate.error.actor.sendDispatch',
          HEARD: ['dispatch.created', 'dispatch.updated'],
          DELETED: 'dispatch.deleted',
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
      const c = startConsole();
      // What the view should show: the log's ids, the input, the last error.
      let ids: string[] = [];
      let draft = '';
      let error: string | null = null;
      let next = 0;
      const expectConsole = (state: string) => () => {
        const s = c.snap();
        expect(selectIsLoadingDispatches(s)).toBe(state === 'loading');
        expect(selectIsSendingDispatch(s)).toBe(state === 'sending');
        expect(selectDispatches(s).map((d) => d.id)).toEqual(ids);
        expect(selectDispatchDraft(s)).toBe(draft);
        expect(selectDispatcherError(s)).toBe(error);
        expect(selectCanSendDispatch(s)).toBe(state === 'ready' && draft !== '');
      };
      await path.test({
        states: {
          loading: expectConsole('loading'),
          ready: expectConsole('ready'),
          sending: expectConsole('sending'),
        },
        events: {
          LOADED: async () => {
            ids = ['d-loaded'];
            error = null;
            c.loads.at(-1)!.resolve(log([dispatch('d-loaded')]));
            await flush();
          },
          LOAD_FAILED: async () => {
            error = 'You are not allowed to do this.';
            c.loads.at(-1)!.reject({ status: 403, message: 'ActionForbidden' });
            await flush();
          },
          REFRESH: () => c.actor.send({ type: 'dispatcher.refreshRequested' }),
          REFRESH_DUE: () => c.clock.increment(LOG_REFRESH_MS),
          TYPED: () => {
            draft = `[vm1] echo ${++next}`;
            c.type(draft);
          },
          SEND: () => {
            if (draft === '') {
              // Nothing typed: the model's SEND is then a typed command sent.
              draft = `echo ${++next}`;
              c.type(draft);
            }
            draft = '';
            c.send();
          },
          SENT: async () => {
            const id = `d-sent-${++next}`;
            if (!ids.includes(id)) ids = [...ids, id];
            error = null;
            c.sends.at(-1)!.answer.resolve(dispatch(id));
            await flush();
          },
          SEND_FAILED: async () => {
            const sent = c.sends.at(-1)!;
            const text = `${sent.body.targetName ? `[${sent.body.targetName}] ` : ''}${sent.body.trigger}`;
            if (draft === '') draft = text;
            error = 'You are not allowed to do this.';
            sent.answer.reject({ status: 403, message: 'ActionForbidden' });
            await flush();
          },
          HEARD: () => {
            const id = `d-heard-${++next}`;
            ids = [...ids, id];
            c.heard.next({ type: 'dispatch.created', dispatch: dispatch(id) });
          },
          DELETED: () => {
            const gone = ids[0];
            if (gone === undefined) return;
            ids = ids.slice(1);
            c.heard.next({ type: 'dispatch.deleted', id: gone });
          },
        },
      });
    });
  }
});
