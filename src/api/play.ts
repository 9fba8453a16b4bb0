import { pipe } from 'fp-ts/function';
import * as TE from 'fp-ts/TaskEither';
import * as t from 'io-ts';
import { nullable, NoContent } from './codecs';
import type { ApiError, HttpClient } from './http';

/** A machine of a gamespace (wire reference §2.2 VmState); `name` is untagged. */
export const GameVm = t.intersection([
  t.type({ id: t.string }),
  t.partial({
    name: nullable(t.string),
    isolationId: nullable(t.string),
    isRunning: t.boolean,
    isVisible: t.boolean,
  }),
]);
export type GameVm = t.TypeOf<typeof GameVm>;

/** A machine of the play page's topology diagram (ours): its name and its networks' names. */
export const GameTopologyNode = t.type({ name: t.string, networks: t.array(t.string) });
export type GameTopologyNode = t.TypeOf<typeof GameTopologyNode>;

/** The challenge as the gamespace shows it (ChallengeView): the points scored and the limits. */
export const GameChallenge = t.partial({
  text: nullable(t.string),
  maxPoints: nullable(t.number),
  maxAttempts: nullable(t.number),
  attempts: nullable(t.number),
  score: nullable(t.number),
});
export type GameChallenge = t.TypeOf<typeof GameChallenge>;

/** A player of a gamespace (wire reference §2.2 Player); managers may extend and end it. */
export const GamePlayer = t.partial({
  subjectId: nullable(t.string),
  subjectName: nullable(t.string),
  isManager: nullable(t.boolean),
});
export type GamePlayer = t.TypeOf<typeof GamePlayer>;

/**
 * GameState (wire reference §2.2). `id` is null for the preview-like state that GET gamespace/{id}
 * answers with a workspace id when the user has no active gamespace of it. Dates are ISO strings
 * with '0001-01-01T00:00:00+00:00' for unset. `canManage` (ours) says whether the caller may
 * manage it: GET gamespace/{id} and POST gamespace have it, hub events do not.
 */
export const GameState = t.partial({
  id: nullable(t.string),
  workspaceId: nullable(t.string),
  name: nullable(t.string),
  slug: nullable(t.string),
  markdown: nullable(t.string),
  managerName: nullable(t.string),
  players: nullable(t.array(GamePlayer)),
  canManage: nullable(t.boolean),
  isActive: nullable(t.boolean),
  startTime: nullable(t.string),
  endTime: nullable(t.string),
  expirationTime: nullable(t.string),
  vms: nullable(t.array(GameVm)),
  challenge: nullable(GameChallenge),
  /** Ours: the machines the player sees (before the start, the templates) and their networks. */
  topology: nullable(t.array(GameTopologyNode)),
});
export type GameState = t.TypeOf<typeof GameState>;

/** GamespaceRegistration (wire reference §2.2), as the launch settings fill it (spec §3). */
export interface LaunchSettings {
  resourceId: string;
  /** 1-based; 0 picks one at random. */
  variant: number;
  maxAttempts: number;
  /** 0 lets the server use the workspace's duration. */
  maxMinutes: number;
  points: number;
  allowReset: boolean;
  allowPreview: boolean;
  startGamespace: boolean;
}

/** A question as the progress shows it; `answer` is the submitted one once graded correct. */
export const ProgressQuestion = t.partial({
  text: nullable(t.string),
  hint: nullable(t.string),
  answer: nullable(t.string),
  example: nullable(t.string),
  weight: nullable(t.number),
  penalty: nullable(t.number),
  isCorrect: nullable(t.boolean),
  isGraded: nullable(t.boolean),
});
export type ProgressQuestion = t.TypeOf<typeof ProgressQuestion>;

/** A question set the player may answer (the server lists eligible sections only). */
export const ProgressSection = t.partial({
  name: nullable(t.string),
  text: nullable(t.string),
  preReqPrevSection: nullable(t.number),
  preReqTotal: nullable(t.number),
  /** The weight scored in this section, as a fraction. */
  score: nullable(t.number),
  questions: nullable(t.array(ProgressQuestion)),
});
export type ProgressSection = t.TypeOf<typeof ProgressSection>;

/** ChallengeProgressView (wire reference §2.3); `{}`-like when there is no challenge. */
export const ChallengeProgress = t.partial({
  id: nullable(t.string),
  text: nullable(t.string),
  attempts: nullable(t.number),
  maxAttempts: nullable(t.number),
  maxPoints: nullable(t.number),
  score: nullable(t.number),
  nextSectionPreReqThisSection: nullable(t.number),
  nextSectionPreReqTotal: nullable(t.number),
  variant: nullable(
    t.partial({
      text: nullable(t.string),
      sections: nullable(t.array(ProgressSection)),
      totalSectionCount: nullable(t.number),
    }),
  ),
});
export type ChallengeProgress = t.TypeOf<typeof ChallengeProgress>;

/** SectionSubmission: every answer of one question set, in order. */
export interface SectionSubmission {
  id: string;
  sectionIndex: number;
  questions: { answer: string }[];
}

const gamespacePath = (id: string, rest = '') => `gamespace/${encodeURIComponent(id)}${rest}`;

/** POST gamespace: registers (launches) a gamespace from a workspace. */
export const registerGamespace =
  (http: HttpClient) =>
  (settings: LaunchSettings, signal: AbortSignal): TE.TaskEither<ApiError, GameState> =>
    http.request(GameState, { method: 'POST', path: 'gamespace', body: settings, signal });

/** GET gamespace/{id}: `id` is a gamespace's, or a workspace's (its active gamespace or preview). */
export const getGamespace =
  (http: HttpClient) =>
  (id: string, signal: AbortSignal): TE.TaskEither<ApiError, GameState> =>
    http.request(GameState, { method: 'GET', path: gamespacePath(id), signal });

export type GamespaceAction = 'start' | 'stop' | 'complete' | 'extend';

/** A change of a gamespace; an extension names its new expiration (ISO). */
export interface GamespaceChange {
  id: string;
  action: GamespaceAction;
  expirationTime?: string;
}

/**
 * POST gamespace/{id}/start (deploys), /stop (destroys machines) or /complete (ends the game);
 * an extension is PUT gamespace {id, expirationTime}, which answers nothing, so the gamespace is
 * read again for the state it leaves.
 */
export const changeGamespace =
  (http: HttpClient) =>
  (
    { id, action, expirationTime }: GamespaceChange,
    signal: AbortSignal,
  ): TE.TaskEither<ApiError, GameState> =>
    action === 'extend'
      ? pipe(
          http.request(NoContent, {
            method: 'PUT',
            path: 'gamespace',
            body: { id, expirationTime },
            signal,
          }),
          TE.chain(() => getGamespace(http)(id, signal)),
        )
      : http.request(GameState, { method: 'POST', path: gamespacePath(id, `/${action}`), signal });

/** DELETE gamespace/{id}: the reset of a game (its machines go first). */
export const deleteGamespace =
  (http: HttpClient) =>
  (id: string, signal: AbortSignal): TE.TaskEither<ApiError, unknown> =>
    http.request(NoContent, { method: 'DELETE', path: gamespacePath(id), signal });

export const JoinCode = t.intersection([
  t.type({ code: t.string }),
  t.partial({ id: nullable(t.string) }),
]);

/** POST gamespace/{id}/invite: a code for the link /mojo/{id}/{slug}/{code}. */
export const inviteToGamespace =
  (http: HttpClient) =>
  (id: string, signal: AbortSignal): TE.TaskEither<ApiError, t.TypeOf<typeof JoinCode>> =>
    http.request(JoinCode, { method: 'POST', path: gamespacePath(id, '/invite'), signal });

/** POST player/{code}: joins the gamespace the code was made for. */
export const joinPlayer =
  (http: HttpClient) =>
  (code: string, signal: AbortSignal): TE.TaskEither<ApiError, unknown> =>
    http.request(NoContent, {
      method: 'POST',
      path: `player/${encodeURIComponent(code)}`,
      body: {},
      signal,
    });

/** GET gamespace/{id}/challenge/progress. */
export const getProgress =
  (http: HttpClient) =>
  (id: string, signal: AbortSignal): TE.TaskEither<ApiError, ChallengeProgress> =>
    http.request(ChallengeProgress, {
      method: 'GET',
      path: gamespacePath(id, '/challenge/progress'),
      signal,
    });

/** POST gamespace/grade: grades one question set; answers the updated gamespace. */
export const gradeSection =
  (http: HttpClient) =>
  (submission: SectionSubmission, signal: AbortSignal): TE.TaskEither<ApiError, GameState> =>
    http.request(GameState, { method: 'POST', path: 'gamespace/grade', body: submission, signal });
