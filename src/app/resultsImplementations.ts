import * as TE from 'fp-ts/TaskEither';
import { pipe } from 'fp-ts/function';
import { fromTaskEither } from '../api/actor';
import type { HttpClient } from '../api/http';
import { downloadWorkspaceResults, getMyResults, getWorkspaceResults } from '../api/results';
import { resultsFileName } from '../domain/results';
import { myResultsMachine } from '../machines/myResultsMachine';
import { workspaceResultsMachine } from '../machines/workspaceResultsMachine';
import { saveBlob } from './saveBlob';

// The results machines' effects: the API calls, and the CSV saved as a download under the name
// the server gives it.

/** /observe/results/{workspaceId}: a workspace's results table. */
export function workspaceResultsLogic(http: HttpClient) {
  return workspaceResultsMachine.provide({
    actors: {
      loadResults: fromTaskEither(({ workspaceId }: { workspaceId: string }, signal) =>
        getWorkspaceResults(http)(workspaceId, signal),
      ),
      exportResults: fromTaskEither(
        ({ workspaceId, workspaceName }: { workspaceId: string; workspaceName: string }, signal) =>
          pipe(
            downloadWorkspaceResults(http)(workspaceId, signal),
            TE.map((csv) =>
              saveBlob(csv, resultsFileName(workspaceName, new Date().toISOString())),
            ),
          ),
      ),
    },
  });
}

/** The home page's history of the signed-in user's own games. */
export function myResultsLogic(http: HttpClient) {
  return myResultsMachine.provide({
    actors: {
      loadMyResults: fromTaskEither((_: unknown, signal) => getMyResults(http)(signal)),
    },
  });
}
