import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromPromise, type AnyStateMachine } from 'xstate';
import type { HypervisorStatus, JanitorReport, LiveConnection } from '../api/admin';
import { adminDashboardMachine, type AdminDashboardSnapshot } from './adminDashboardMachine';
import {
  selectAnnounceError,
  selectCanAnnounce,
  selectCommit,
  selectDraft,
  selectHypervisor,
  selectHypervisorError,
  selectIsAnnouncing,
  selectIsLoadingHypervisor,
  selectIsJanitorRunning,
  selectIsLoadingLive,
  selectJanitorError,
  selectLive,
  selectLiveError,
  selectReport,
  selectReportDryRun,
  selectSent,
} from './adminDashboardMachine.selectors';
import { deferred, flush, type Deferred } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';

type Kind = 'announce' | 'loadLive' | 'loadHypervisor' | 'loadVersion' | 'runJanitor';
interface Call {
  kind: Kind;
  input: unknown;
  answer: Deferred<unknown>;
}

function start() {
  const calls: Call[] = [];
  const call = <T, I>(kind: Kind) =>
    fromPromise<T, I>(({ input }) => {
      const answer = deferred<unknown>();
      calls.push({ kind, input, answer });
      return answer.promise as Promise<T>;
    });
  const actor = createActor(
    adminDashboardMachine.provide({
      actors: {
        announce: call<unknown, { message: string }>('announce'),
        loadLive: call<LiveConnection[], void>('loadLive'),
        loadHypervisor: call<HypervisorStatus, void>('loadHypervisor'),
        loadVersion: call<{ commit?: string | null }, void>('loadVersion'),
        runJanitor: call<JanitorReport[], { dryRun: boolean }>('runJanitor'),
      },
    }),
  ).start();
  const pending = (kind: Kind) => calls.filter((c) => c.kind === kind).at(-1)!;
  const answer = async (kind: Kind, value: unknown) => {
    pending(kind).answer.resolve(value);
    await flush();
  };
  const fail = async (kind: Kind, message: string) => {
    pending(kind).answer.reject({ status: 400, message });
    await flush();
  };
  return { actor, calls, pending, answer, fail, snap: () => actor.getSnapshot() };
}

/** A qemu host's status with `running` machines of 4, each of 256 MiB, and no orphans. */
const qemuStatus = (running: number): HypervisorStatus => ({
  kind: 'qemu',
  acceleration: 'software emulation',
  running,
  maxRunning: 4,
  memoryMiBInUse: 256 * running,
  maxMemoryMiB: 2048,
  orphans: 0,
});

describe('adminDashboardMachine', () => {
  it('loads the live connections, the hypervisor status and the version on entry', async () => {
    const d = start();
    expect(d.calls.map((c) => c.kind).sort()).toEqual([
      'loadHypervisor',
      'loadLive',
      'loadVersion',
    ]);
    await d.answer('loadLive', [{ id: 'c1', room: 'ws-1', profileName: 'Ada' }]);
    await d.answer('loadHypervisor', qemuStatus(1));
    await d.answer('loadVersion', { commit: 'abc123' });
    expect(selectLive(d.snap())).toEqual([{ id: 'c1', room: 'ws-1', profileName: 'Ada' }]);
    expect(selectHypervisor(d.snap())).toEqual(qemuStatus(1));
    expect(selectCommit(d.snap())).toBe('abc123');
  });

  it('keeps the last hypervisor status beside the error when a refresh fails', async () => {
    const d = start();
    await d.answer('loadHypervisor', qemuStatus(2));
    d.actor.send({ type: 'hypervisor.refreshRequested' });
    expect(selectIsLoadingHypervisor(d.snap())).toBe(true);
    // One load at a time: a second request while loading asks nothing more.
    d.actor.send({ type: 'hypervisor.refreshRequested' });
    expect(d.calls.filter((c) => c.kind === 'loadHypervisor')).toHaveLength(2);
    await d.fail('loadHypervisor', 'ActionForbidden');
    expect(selectIsLoadingHypervisor(d.snap())).toBe(false);
    expect(selectHypervisor(d.snap())).toEqual(qemuStatus(2));
    expect(selectHypervisorError(d.snap())).toBe('You are not allowed to do this.');
    d.actor.send({ type: 'hypervisor.refreshRequested' });
    await d.answer('loadHypervisor', qemuStatus(3));
    expect(selectHypervisor(d.snap())).toEqual(qemuStatus(3));
    expect(selectHypervisorError(d.snap())).toBeNull();
  });

  it('sends the trimmed announcement, clears the form and confirms it', async () => {
    const d = start();
    expect(selectCanAnnounce(d.snap())).toBe(false);
    d.actor.send({ type: 'announce.edited', text: '  lunch at noon ' });
    d.actor.send({ type: 'announce.submitted' });
    expect(d.pending('announce').input).toEqual({ message: 'lunch at noon' });
    // One at a time: a second submit while sending sends nothing.
    d.actor.send({ type: 'announce.submitted' });
    expect(d.calls.filter((c) => c.kind === 'announce')).toHaveLength(1);
    await d.answer('announce', true);
    expect(d.snap().context.draft).toBe('');
    expect(selectSent(d.snap())).toBe('lunch at noon');
  });

  it('keeps the draft and says why when the announcement fails', async () => {
    const d = start();
    d.actor.send({ type: 'announce.edited', text: 'hello' });
    d.actor.send({ type: 'announce.submitted' });
    await d.fail('announce', 'ActionForbidden');
    expect(selectAnnounceError(d.snap())).toBe('You are not allowed to do this.');
    expect(d.snap().context.draft).toBe('hello');
    expect(selectCanAnnounce(d.snap())).toBe(true);
  });

  it('runs the janitor as asked and keeps its report, while the rest stays usable', async () => {
    const d = start();
    d.actor.send({ type: 'janitor.runRequested', dryRun: false });
    expect(selectIsJanitorRunning(d.snap())).toBe(true);
    expect(d.pending('runJanitor').input).toEqual({ dryRun: false });
    d.actor.send({ type: 'announce.edited', text: 'still here' });
    expect(selectCanAnnounce(d.snap())).toBe(true);
    const report: JanitorReport[] = [
      { id: 'w1', name: 'Old lab', reason: 'IdleWorkspaceVms', vmCount: 2 },
    ];
    await d.answer('runJanitor', report);
    expect(selectIsJanitorRunning(d.snap())).toBe(false);
    expect(selectReport(d.snap())).toEqual(report);
  });

  it('refreshes the live connections on request', async () => {
    const d = start();
    await d.answer('loadLive', []);
    d.actor.send({ type: 'live.refreshRequested' });
    await d.answer('loadLive', [{ id: 'c2' }]);
    expect(selectLive(d.snap())).toEqual([{ id: 'c2' }]);
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(adminDashboardMachine, {
        // Whether there is a draft decides whether it can be sent: abstracted to a flag.
        serializeState: (snapshot) =>
          JSON.stringify([
            snapshot.value,
            (snapshot as unknown as AdminDashboardSnapshot).context.draft !== '',
          ]),
        payloads: [
          { type: 'announce.edited', text: 'hello' },
          { type: 'janitor.runRequested', dryRun: true },
        ],
      }),
    ).toEqual([]);
  });
});

type Dashboard = ReturnType<typeof start>;
const FORBIDDEN = 'You are not allowed to do this.';

/** One parallel region of the dashboard: its flat model, and how a path drives and checks it. */
interface RegionModel {
  region: 'announce' | 'live' | 'janitor' | 'hypervisor' | 'version';
  model: AnyStateMachine;
  /** Each model event: the machine's event (the invokes have no ids: named after their states). */
  events: Record<string, string>;
  /** Per path: what the view should read in each model state, and how each event is caused. */
  drive: (d: Dashboard) => {
    check: (state: string) => void;
    events: Record<string, () => void | Promise<void>>;
  };
}

const flat = (id: string, states: Record<string, Record<string, string>>) =>
  createMachine({
    id,
    initial: Object.keys(states)[0]!,
    states: Object.fromEntries(Object.entries(states).map(([name, on]) => [name, { on }])),
  });

const regionModels: RegionModel[] = [
  {
    region: 'announce',
    model: flat('announceModel', {
      editing: { TYPED: 'editing', SUBMIT: 'sending' },
      sending: { SENT: 'editing', SEND_FAILED: 'editing' },
    }),
    events: {
      TYPED: 'announce.edited',
      SUBMIT: 'announce.submitted',
      SENT: 'xstate.done.actor.0.adminDashboard.announce.sending',
      SEND_FAILED: 'xstate.error.actor.0.adminDashboard.announce.sending',
    },
    drive: (d) => {
      let draft = '';
      let sent: string | null = null;
      let error: string | null = null;
      let next = 0;
      const type = () => {
        draft = `note ${++next}`;
        d.actor.send({ type: 'announce.edited', text: `  ${draft} ` });
      };
      return {
        check: (state) => {
          const s = d.snap();
          expect(selectIsAnnouncing(s)).toBe(state === 'sending');
          expect(selectDraft(s).trim()).toBe(draft);
          expect(selectSent(s)).toBe(sent);
          expect(selectAnnounceError(s)).toBe(error);
          expect(selectCanAnnounce(s)).toBe(state === 'editing' && draft !== '');
          if (state === 'sending') expect(d.pending('announce').input).toEqual({ message: draft });
        },
        events: {
          TYPED: type,
          SUBMIT: () => {
            // Nothing typed: the model's SUBMIT is then a typed announcement sent.
            if (draft === '') type();
            d.actor.send({ type: 'announce.submitted' });
          },
          SENT: async () => {
            sent = draft;
            draft = '';
            error = null;
            await d.answer('announce', true);
          },
          SEND_FAILED: async () => {
            error = FORBIDDEN;
            await d.fail('announce', 'ActionForbidden');
          },
        },
      };
    },
  },
  {
    region: 'live',
    model: flat('liveModel', {
      loading: { LOADED: 'loaded', LOAD_FAILED: 'loaded' },
      loaded: { REFRESH: 'loading' },
    }),
    events: {
      LOADED: 'xstate.done.actor.0.adminDashboard.live.loading',
      LOAD_FAILED: 'xstate.error.actor.0.adminDashboard.live.loading',
      REFRESH: 'live.refreshRequested',
    },
    drive: (d) => {
      let ids: string[] = [];
      let error: string | null = null;
      return {
        check: (state) => {
          expect(selectIsLoadingLive(d.snap())).toBe(state === 'loading');
          expect(selectLive(d.snap()).map((c) => c.id)).toEqual(ids);
          expect(selectLiveError(d.snap())).toBe(error);
        },
        events: {
          LOADED: async () => {
            ids = [`c${d.calls.length}`];
            error = null;
            await d.answer('loadLive', [{ id: ids[0] }]);
          },
          LOAD_FAILED: async () => {
            error = FORBIDDEN;
            await d.fail('loadLive', 'ActionForbidden');
          },
          REFRESH: () => d.actor.send({ type: 'live.refreshRequested' }),
        },
      };
    },
  },
  {
    region: 'janitor',
    model: flat('janitorModel', {
      idle: { RUN: 'running' },
      running: { RAN: 'idle', RUN_FAILED: 'idle' },
    }),
    events: {
      RUN: 'janitor.runRequested',
      RAN: 'xstate.done.actor.0.adminDashboard.janitor.running',
      RUN_FAILED: 'xstate.error.actor.0.adminDashboard.janitor.running',
    },
    drive: (d) => {
      let report: JanitorReport[] | null = null;
      let dryRun = true;
      let error: string | null = null;
      let runs = 0;
      return {
        check: (state) => {
          expect(selectIsJanitorRunning(d.snap())).toBe(state === 'running');
          expect(selectReport(d.snap())).toEqual(report);
          expect(selectReportDryRun(d.snap())).toBe(dryRun);
          expect(selectJanitorError(d.snap())).toBe(error);
          if (state === 'running') expect(d.pending('runJanitor').input).toEqual({ dryRun });
        },
        events: {
          RUN: () => {
            // Real and dry runs take turns.
            dryRun = ++runs % 2 === 0;
            d.actor.send({ type: 'janitor.runRequested', dryRun });
          },
          RAN: async () => {
            report = [{ id: `w${runs}`, name: 'Old lab', reason: 'IdleWorkspaceVms', vmCount: 1 }];
            error = null;
            await d.answer('runJanitor', report);
          },
          RUN_FAILED: async () => {
            error = FORBIDDEN;
            await d.fail('runJanitor', 'ActionForbidden');
          },
        },
      };
    },
  },
  {
    region: 'hypervisor',
    model: flat('hypervisorModel', {
      loading: { LOADED: 'loaded', LOAD_FAILED: 'loaded' },
      loaded: { REFRESH: 'loading' },
    }),
    events: {
      LOADED: 'xstate.done.actor.0.adminDashboard.hypervisor.loading',
      LOAD_FAILED: 'xstate.error.actor.0.adminDashboard.hypervisor.loading',
      REFRESH: 'hypervisor.refreshRequested',
    },
    drive: (d) => {
      let status: HypervisorStatus | null = null;
      let error: string | null = null;
      let loads = 0;
      return {
        check: (state) => {
          expect(selectIsLoadingHypervisor(d.snap())).toBe(state === 'loading');
          expect(selectHypervisor(d.snap())).toEqual(status);
          expect(selectHypervisorError(d.snap())).toBe(error);
        },
        events: {
          LOADED: async () => {
            status = qemuStatus(++loads);
            error = null;
            await d.answer('loadHypervisor', status);
          },
          // The last status stays: only the error is new.
          LOAD_FAILED: async () => {
            error = FORBIDDEN;
            await d.fail('loadHypervisor', 'ActionForbidden');
          },
          REFRESH: () => d.actor.send({ type: 'hypervisor.refreshRequested' }),
        },
      };
    },
  },
  {
    region: 'version',
    model: flat('versionModel', {
      loading: { LOADED: 'loaded', LOAD_FAILED: 'loaded' },
      loaded: {},
    }),
    events: {
      LOADED: 'xstate.done.actor.0.adminDashboard.version.loading',
      LOAD_FAILED: 'xstate.error.actor.0.adminDashboard.version.loading',
    },
    drive: (d) => {
      let commit: string | null = null;
      return {
        check: () => expect(selectCommit(d.snap())).toBe(commit),
        events: {
          LOADED: async () => {
            commit = 'abc123';
            await d.answer('loadVersion', { commit });
          },
          // The version is a nicety: its failure shows nothing.
          LOAD_FAILED: () => d.fail('loadVersion', 'ActionForbidden'),
        },
      };
    },
  },
];

const outsideEvents = [
  'announce.edited',
  'announce.submitted',
  'live.refreshRequested',
  'hypervisor.refreshRequested',
  'janitor.runRequested',
];

/**
 * Model-based tests, one flat model per parallel region (the parts work on their own), each path
 * driving the real dashboard and checking what the view reads of that part after every step.
 */
for (const { region, model, events, drive } of regionModels) {
  describe(`adminDashboardMachine ${region} against its model`, () => {
    it('agrees with the real machine', () => {
      const states = Object.keys(model.root.states);
      expect(
        modelDisagreements(model, adminDashboardMachine, {
          states: Object.fromEntries(states.map((state) => [state, `${region}.${state}`])),
          events,
          unmodelledStates: regionModels.map((r) => r.region).filter((r) => r !== region),
          unmodelledEvents: outsideEvents.filter((type) => !Object.values(events).includes(type)),
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
        const d = start();
        const driver = drive(d);
        const states = Object.keys(model.root.states);
        await path.test({
          states: Object.fromEntries(
            states.map((state) => [
              state,
              () => {
                expect(d.snap().matches({ [region]: state } as never)).toBe(true);
                driver.check(state);
              },
            ]),
          ),
          events: driver.events,
        });
      });
    }
  });
}
