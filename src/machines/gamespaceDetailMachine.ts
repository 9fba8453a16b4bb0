import {
  assertEvent,
  assign,
  fromPromise,
  sendTo,
  setup,
  type ActorRefFrom,
  type SnapshotFrom,
} from 'xstate';
import type { GamespaceChallenge, Player } from '../api/gamespaces';
import type { GameVm } from '../api/play';
import { errorMessage } from '../domain/text';
import { gameTimelineMachine, type GameTimelineActorRef } from './gameTimelineMachine';
import {
  vmControllerMachine,
  type VmControllerActorRef,
  type VmControllerInput,
} from './vmControllerMachine';

/** What an expanded row of the gamespace browser shows (spec §2 Gamespace browser). */
export interface GamespaceDetail {
  /** The raw detail (GET gamespace/{id}/challenge): the Json tab shows it as it came. */
  challenge: GamespaceChallenge;
  /** The gamespace's machines, names without their '#tag'. */
  vms: GameVm[];
  /** Null when the viewer may not list players (observers: the reference refuses them). */
  players: Player[] | null;
}

export const DETAIL_TABS = ['detail', 'events', 'json', 'dispatcher', 'recordings'] as const;
export type DetailTab = (typeof DETAIL_TABS)[number];

export type GamespaceDetailEvent =
  { type: 'detail.tabSelected'; tab: DetailTab } | { type: 'detail.retryRequested' };

export interface GamespaceDetailInput {
  gamespaceId: string;
  /** The gamespace's workspace (its Events tab listens on its observe channel); null: unknown. */
  workspaceId?: string | null;
  /** The admin route's full view: machine Delete is offered only there. */
  fullAdminView: boolean;
}

export interface GamespaceDetailContext extends GamespaceDetailInput {
  detail: GamespaceDetail | null;
  error: string | null;
  tab: DetailTab;
  /** One controller per machine, by the machine's id; spawned once the detail arrives. */
  controllers: Record<string, VmControllerActorRef>;
  /** The Events tab's log; it loads only while that tab is shown. */
  timeline: GameTimelineActorRef;
}

/**
 * A browser's machine controller: the machine is loaded by its own id (it stands for the
 * template's), its console opens in a tab of its own (not full bleed), and Delete shows only in
 * the full admin view.
 */
export const browserVmControllerInput = (
  context: Pick<GamespaceDetailInput, 'gamespaceId' | 'fullAdminView'>,
  vm: GameVm,
): VmControllerInput => ({
  template: { id: vm.id, name: vm.name ?? '', isLinked: true, workspaceId: context.gamespaceId },
  hideDelete: !context.fullAdminView,
  fullbleed: false,
  sessionId: context.gamespaceId,
});

/** An expanded row: its detail loads once, then each machine gets its controller. */
export const gamespaceDetailMachine = setup({
  types: {
    input: {} as GamespaceDetailInput,
    context: {} as GamespaceDetailContext,
    events: {} as GamespaceDetailEvent,
    // 'loading': the detail is on its way (a spinner shows).
    tags: {} as 'loading',
  },
  actors: {
    /** The challenge, the machines and (where readable) the players; the app provides it. */
    loadDetail: fromPromise<GamespaceDetail, { gamespaceId: string }>(() => {
      throw new Error('gamespaceDetailMachine: provide the loadDetail actor');
    }),
    /** Provide it with the controller's effects. */
    vmController: vmControllerMachine,
    /** Provide it with its loadEvents. */
    gameTimeline: gameTimelineMachine,
  },
}).createMachine({
  id: 'gamespaceDetail',
  description:
    'An expanded row of the gamespace browser: it loads the gamespace detail (challenge, machines, players), then runs a controller for each machine; the tab shown is Detail, Events, Json, Dispatcher or Recordings, and the Events tab loads its log while shown.',
  context: ({ input, spawn }) => ({
    ...input,
    detail: null,
    error: null,
    tab: 'detail',
    controllers: {},
    timeline: spawn('gameTimeline', {
      id: 'timeline',
      input: { gamespaceId: input.gamespaceId, workspaceId: input.workspaceId ?? null },
    }),
  }),
  initial: 'loading',
  on: {
    'detail.tabSelected': {
      actions: [
        assign({
          tab: ({ event }) => {
            assertEvent(event, 'detail.tabSelected');
            return event.tab;
          },
        }),
        // The log loads (and keeps loading) only while its tab is shown.
        sendTo(
          ({ context }) => context.timeline,
          ({ context }) => ({
            type: context.tab === 'events' ? 'timeline.shown' : 'timeline.hidden',
          }),
        ),
      ],
    },
  },
  states: {
    loading: {
      tags: ['loading'],
      invoke: {
        src: 'loadDetail',
        input: ({ context }) => ({ gamespaceId: context.gamespaceId }),
        onDone: {
          target: 'loaded',
          actions: assign(({ context, event, spawn }) => {
            // Graph traversals send done events bare: no detail is an empty one.
            const detail = event.output ?? { challenge: {}, vms: [], players: null };
            return {
              detail,
              error: null,
              controllers: Object.fromEntries(
                detail.vms.map((vm) => [
                  vm.id,
                  spawn('vmController', {
                    id: `vm-${vm.id}`,
                    input: browserVmControllerInput(context, vm),
                  }),
                ]),
              ),
            };
          }),
        },
        onError: {
          target: 'failed',
          actions: assign({ error: ({ event }) => errorMessage(event.error) }),
        },
      },
    },
    loaded: {},
    failed: {
      on: { 'detail.retryRequested': 'loading' },
    },
  },
});

export type GamespaceDetailActorRef = ActorRefFrom<typeof gamespaceDetailMachine>;
export type GamespaceDetailSnapshot = SnapshotFrom<typeof gamespaceDetailMachine>;
