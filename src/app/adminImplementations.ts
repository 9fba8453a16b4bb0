import * as TE from 'fp-ts/TaskEither';
import { pipe } from 'fp-ts/function';
import { fromTaskEither } from '../api/actor';
import {
  announce,
  downloadWorkspaces,
  exportWorkspaces,
  getHypervisorStatus,
  getServerLog,
  getVersion,
  importWorkspaces,
  listAllVms,
  listLiveConnections,
  operateVm,
  runJanitor,
  uploadWorkspaces,
} from '../api/admin';
import type { HttpClient } from '../api/http';
import { listPools, setPoolSize } from '../api/pools';
import { listWorkspaces } from '../api/workspaces';
import type { adminDashboardMachine } from '../machines/adminDashboardMachine';
import type { adminVmsMachine } from '../machines/adminVmsMachine';
import type { serverLogMachine } from '../machines/serverLogMachine';
import type { warmPoolsMachine } from '../machines/warmPoolsMachine';
import type { workspaceArchiveMachine } from '../machines/workspaceArchiveMachine';
import { saveBlob } from './saveBlob';

type Implementations<T extends { provide: (...args: never[]) => unknown }> = Parameters<
  T['provide']
>[0];

/** The admin Dashboard's effects over the API. */
export const adminDashboardImplementations = (
  http: HttpClient,
): Implementations<typeof adminDashboardMachine> => ({
  actors: {
    announce: fromTaskEither(({ message }: { message: string }, signal) =>
      announce(http)(message, signal),
    ),
    loadLive: fromTaskEither((_: void, signal) => listLiveConnections(http)(signal)),
    loadHypervisor: fromTaskEither((_: void, signal) => getHypervisorStatus(http)(signal)),
    loadVersion: fromTaskEither((_: void, signal) => getVersion(http)(signal)),
    runJanitor: fromTaskEither((options: { dryRun: boolean }, signal) =>
      runJanitor(http)(options, signal),
    ),
  },
});

/** The admin Machines section's effects. */
export const adminVmsImplementations = (
  http: HttpClient,
): Implementations<typeof adminVmsMachine> => ({
  actors: {
    loadVms: fromTaskEither((_: void, signal) => listAllVms(http)('', signal)),
    operateVm: fromTaskEither(
      ({ id, operation }: { id: string; operation: 'start' | 'stop' | 'delete' }, signal) =>
        pipe(
          operateVm(http)({ id, type: operation }, signal),
          TE.map((): void => undefined),
        ),
    ),
  },
});

/** The admin Log's effect. */
export const serverLogImplementations = (
  http: HttpClient,
): Implementations<typeof serverLogMachine> => ({
  actors: { loadLog: fromTaskEither((_: void, signal) => getServerLog(http)(signal)) },
});

/** The Dashboard's export and import panel; a download is saved through the browser. */
export const workspaceArchiveImplementations = (
  http: HttpClient,
): Implementations<typeof workspaceArchiveMachine> => ({
  actors: {
    exportWorkspaces: fromTaskEither(({ ids }: { ids: string[] }, signal) =>
      exportWorkspaces(http)(ids, signal),
    ),
    loadWorkspaces: fromTaskEither((_: void, signal) =>
      pipe(
        listWorkspaces(http)({}, signal),
        TE.map((list) => list.map((w) => ({ id: w.id, name: w.name ?? w.id }))),
      ),
    ),
    downloadArchive: fromTaskEither(
      ({ ids, fileName }: { ids: string[]; fileName: string }, signal) =>
        pipe(
          downloadWorkspaces(http)(ids, signal),
          TE.map((zip): unknown => saveBlob(zip, fileName)),
        ),
    ),
    importWorkspaces: fromTaskEither((_: void, signal) => importWorkspaces(http)(signal)),
    uploadArchive: fromTaskEither(({ file, fileName }: { file: Blob; fileName: string }, signal) =>
      uploadWorkspaces(http)(file, fileName, signal),
    ),
  },
});

/** The Dashboard's Warm pools panel: the pools, a pool's size set, the workspace search. */
export const warmPoolsImplementations = (
  http: HttpClient,
): Implementations<typeof warmPoolsMachine> => ({
  actors: {
    listPools: fromTaskEither((_: void, signal) => listPools(http)(signal)),
    setPoolSize: fromTaskEither((request: { workspaceId: string; size: number }, signal) =>
      setPoolSize(http)(request, signal),
    ),
    // One page of the workspace list's own search (all workspaces, for an administrator).
    searchWorkspaces: fromTaskEither((search: { term: string; take: number }, signal) =>
      pipe(
        listWorkspaces(http)({ term: search.term, take: search.take }, signal),
        TE.map((list) => list.map((w) => ({ id: w.id, name: w.name ?? w.id }))),
      ),
    ),
  },
});
