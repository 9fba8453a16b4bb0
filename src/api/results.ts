import type * as TE from 'fp-ts/TaskEither';
import * as t from 'io-ts';
import { nullable } from './codecs';
import type { ApiError, HttpClient } from './http';

// Results (ours): every gamespace of a workspace with its players, times, score per question set
// and attempts, for observers and administrators (GET workspace/{id}/results, and the same as a
// CSV file at workspace/{id}/results.csv); and the caller's own games (GET my/results).

export const QuestionSetResult = t.type({
  name: t.string,
  /** In points. */
  score: t.number,
  maxScore: t.number,
  attempts: t.number,
});
export type QuestionSetResult = t.TypeOf<typeof QuestionSetResult>;

export const GameResult = t.type({
  gamespaceId: t.string,
  workspaceId: nullable(t.string),
  /** The workspace's name when the gamespace was launched. */
  name: t.string,
  managerId: t.string,
  managerName: t.string,
  players: t.array(t.type({ id: t.string, name: t.string, isManager: t.boolean })),
  isTeam: t.boolean,
  whenCreated: t.string,
  startTime: t.string,
  /** Unset (0001-01-01) while it runs. */
  endTime: t.string,
  expirationTime: t.string,
  secondsUsed: t.number,
  isRunning: t.boolean,
  score: t.number,
  maxPoints: t.number,
  questionSets: t.array(QuestionSetResult),
  attempts: t.number,
  /** Per question set; 0 is no limit. */
  maxAttempts: t.number,
});
export type GameResult = t.TypeOf<typeof GameResult>;

export const WorkspaceResults = t.type({
  workspaceId: t.string,
  workspaceName: t.string,
  now: t.string,
  games: t.array(GameResult),
});
export type WorkspaceResults = t.TypeOf<typeof WorkspaceResults>;

const BlobCodec = new t.Type<Blob, Blob, unknown>(
  'Blob',
  (value): value is Blob => value instanceof Blob,
  (value, context) => (value instanceof Blob ? t.success(value) : t.failure(value, context)),
  (value) => value,
);

/** GET workspace/{id}/results. */
export const getWorkspaceResults =
  (http: HttpClient) =>
  (workspaceId: string, signal: AbortSignal): TE.TaskEither<ApiError, WorkspaceResults> =>
    http.request(WorkspaceResults, {
      method: 'GET',
      path: `workspace/${encodeURIComponent(workspaceId)}/results`,
      signal,
    });

/** GET workspace/{id}/results.csv: the same results as a CSV file. */
export const downloadWorkspaceResults =
  (http: HttpClient) =>
  (workspaceId: string, signal: AbortSignal): TE.TaskEither<ApiError, Blob> =>
    http.request(BlobCodec, {
      method: 'GET',
      path: `workspace/${encodeURIComponent(workspaceId)}/results.csv`,
      blobResponse: true,
      signal,
    });

/** GET my/results: the caller's own games, newest first. */
export const getMyResults =
  (http: HttpClient) =>
  (signal: AbortSignal): TE.TaskEither<ApiError, GameResult[]> =>
    http.request(t.array(GameResult), { method: 'GET', path: 'my/results', signal });
