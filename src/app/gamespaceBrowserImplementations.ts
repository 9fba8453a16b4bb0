import * as E from 'fp-ts/Either';
import * as TE from 'fp-ts/TaskEither';
import { pipe } from 'fp-ts/function';
import { fromCallback, fromEventObservable, fromPromise, type EventObject } from 'xstate';
import { fromTaskEither } from '../api/actor';
import {
  getGamespaceChallenge,
  listGamespaces,
  listGamespaceVms,
  listPlayers,
  type Gamespace,
  type Player,
} from '../api/gamespaces';
import { createDispatch, listDispatches } from '../api/dispatch';
import { listGameEvents } from '../api/gameEvents';
import type { ApiError } from '../api/http';
import { deleteGamespace } from '../api/play';
import { listRecordings } from '../api/recordings';
import type { Vm } from '../api/vm';
import { errorMessage } from '../domain/text';
import {
  gamespaceBrowserMachine,
  gamespaceListSearchMachine,
  type DeleteOutcome,
  type GamespaceRow,
} from '../machines/gamespaceBrowserMachine';
import { dispatcherConsoleMachine } from '../machines/dispatcherConsoleMachine';
import { gameTimelineMachine } from '../machines/gameTimelineMachine';
import { recordingListMachine } from '../machines/recordingListMachine';
import { gamespaceDetailMachine, type GamespaceDetail } from '../machines/gamespaceDetailMachine';
import type { PageQuery } from '../machines/pagedSearchMachine';
import { splitVmName } from '../machines/vmControllerRules';
import { clockTicks$ } from '../streams/clock';
import { gamespaceEvents$ } from '../streams/gameTimeline';
import { observeChannel, snapshots$ } from '../streams/hub';
import { selectIsChannelJoined } from '../machines/hubConnectionMachine.selectors';
import { distinctUntilChanged, map, merge } from 'rxjs';
import { gamespaceDispatches$ } from '../streams/dispatches';
import { gameVmLogic } from './vmControllerImplementations';
import type { WorkspaceDependencies } from './workspaceImplementations';

export const toGamespaceRow = (gamespace: Gamespace): GamespaceRow => ({
  id: gamespace.id,
  name: gamespace.name ?? '',
  workspaceId: gamespace.workspaceId ?? null,
  managerName: gamespace.managerName ?? '',
  startTime: gamespace.startTime ?? null,
  endTime: gamespace.endTime ?? null,
  expirationTime: gamespace.expirationTime ?? null,
});

/** A listed machine as the controllers take it: its name without the '#tag' (spec §2). */
const toGameVm = (vm: Vm) => ({ id: vm.id, name: splitVmName(vm.name ?? '').name });

/**
 * Players are read where the reference lets the viewer read them (managers, players, admins);
 * an observer is refused, which is no failure of the detail: the summary says so instead.
 */
const playersIfReadable =
  (deps: WorkspaceDependencies) =>
  (id: string, signal: AbortSignal): TE.TaskEither<ApiError, Player[] | null> =>
    pipe(
      listPlayers(deps.http)(id, signal),
      TE.map((players): Player[] | null => players),
      TE.orElse((error) => (error.status === 403 ? TE.right(null) : TE.left(error))),
    );

const loadDetail = (deps: WorkspaceDependencies) =>
  fromTaskEither(({ gamespaceId }: { gamespaceId: string }, signal) =>
    pipe(
      TE.Do,
      TE.apS('challenge', getGamespaceChallenge(deps.http)(gamespaceId, signal)),
      TE.apS(
        'vms',
        pipe(
          listGamespaceVms(deps.http)(gamespaceId, signal),
          TE.map((vms) => vms.map(toGameVm)),
        ),
      ),
      TE.apS('players', playersIfReadable(deps)(gamespaceId, signal)),
      TE.map((detail): GamespaceDetail => detail),
    ),
  );

/**
 * The Events tab's live feed: while shown it listens on the workspace's observe channel, tells
 * the timeline whether that channel is joined, and passes on the gamespace's recorded events.
 */
const liveTimelineLogic = ({ hub, hubEvents }: WorkspaceDependencies) =>
  fromCallback<EventObject, { gamespaceId: string; workspaceId: string | null }>(
    ({ input, sendBack }) => {
      if (input.workspaceId === null) return undefined;
      const channelId = observeChannel(input.workspaceId);
      hub.send({ type: 'hub.listenRequested', channelId });
      const told = merge(
        snapshots$(hub).pipe(
          map(selectIsChannelJoined(channelId)),
          distinctUntilChanged(),
          map((live) => ({ type: 'timeline.liveChanged' as const, live })),
        ),
        gamespaceEvents$(hubEvents, input.gamespaceId),
      ).subscribe((event) => sendBack(event));
      return () => {
        told.unsubscribe();
        hub.send({ type: 'hub.leaveRequested', channelId });
      };
    },
  );

/** A gamespace's timeline, loaded once and then live (the Events tab, the wall's cards). */
export const gameTimelineLogic = (deps: WorkspaceDependencies) =>
  gameTimelineMachine.provide({
    actors: {
      loadEvents: fromTaskEither(({ gamespaceId }: { gamespaceId: string }, signal) =>
        listGameEvents(deps.http)(gamespaceId, signal),
      ),
      liveEvents: liveTimelineLogic(deps),
    },
  });

/** The deletes run one after another; each failure is reported with the gamespace's id. */
const deleteEach = (deps: WorkspaceDependencies) =>
  fromPromise<DeleteOutcome, { ids: string[] }>(async ({ input, signal }) => {
    const outcome: DeleteOutcome = { deleted: [], errors: [] };
    for (const id of input.ids) {
      const result = await deleteGamespace(deps.http)(id, signal)();
      if (E.isRight(result)) outcome.deleted.push(id);
      else outcome.errors.push(`${id.slice(0, 8)}: ${errorMessage(result.left)}`);
    }
    return outcome;
  });

/** The gamespace browser with its effects (observe page and admin Gamespaces). */
export function gamespaceBrowserLogic(deps: WorkspaceDependencies) {
  return gamespaceBrowserMachine.provide({
    actors: {
      gamespaceSearch: gamespaceListSearchMachine.provide({
        actors: {
          fetchPage: fromTaskEither((query: PageQuery, signal) =>
            pipe(
              listGamespaces(deps.http)(query, signal),
              TE.map((gamespaces) => gamespaces.map(toGamespaceRow)),
            ),
          ),
        },
      }),
      gamespaceDetail: gamespaceDetailMachine.provide({
        actors: {
          loadDetail: loadDetail(deps),
          vmController: gameVmLogic(deps),
          gameTimeline: gameTimelineLogic(deps),
        },
      }),
      clock: fromEventObservable(() => clockTicks$()),
      deleteGamespaces: deleteEach(deps),
    },
  });
}

/**
 * The Dispatcher tab's console. `listen`: whether the viewer may Listen on the gamespace's
 * channel; the reference lets admins listen on any gamespace but refuses observers (wire
 * reference §3 Listen), whose console then shows what it loaded and what Refresh brings.
 */
export function dispatcherConsoleLogic(
  deps: WorkspaceDependencies,
  { listen }: { listen: boolean },
) {
  const { http, hub, hubEvents } = deps;
  return dispatcherConsoleMachine.provide({
    actors: {
      loadDispatches: fromTaskEither(({ gamespaceId }: { gamespaceId: string }, signal) =>
        listDispatches(http)(gamespaceId, signal),
      ),
      sendDispatch: fromTaskEither(createDispatch(http)),
      listenToChannel: fromCallback<EventObject, { channelId: string }>(({ input }) => {
        if (!listen) return undefined;
        hub.send({ type: 'hub.listenRequested', channelId: input.channelId });
        return () => hub.send({ type: 'hub.leaveRequested', channelId: input.channelId });
      }),
      dispatchEvents: fromEventObservable(({ input }: { input: { gamespaceId: string } }) =>
        gamespaceDispatches$(hubEvents, input.gamespaceId),
      ),
    },
  });
}

/** The Recordings tab's list (GET gamespace/{id}/recordings). */
export function recordingListLogic(deps: WorkspaceDependencies) {
  return recordingListMachine.provide({
    actors: {
      loadRecordings: fromTaskEither(({ gamespaceId }: { gamespaceId: string }, signal) =>
        listRecordings(deps.http)(gamespaceId, signal),
      ),
    },
  });
}
