import type * as TE from 'fp-ts/TaskEither';
import * as t from 'io-ts';
import { nullable } from './codecs';
import type { ApiError, HttpClient } from './http';

// Answer-sharing alerts (GET alerts, ours; server/core/answerAlerts.ts): a submission of the
// answer another gamespace of the workspace was generated, or of a canary answer, told to
// administrators and observers of the workspace's audience. Newest first.

export const AlertKind = t.keyof({ shared: null, canary: null });
export type AlertKind = t.TypeOf<typeof AlertKind>;

export const Alert = t.type({
  id: t.string,
  /** ISO 8601, UTC. */
  at: t.string,
  workspaceId: t.string,
  kind: AlertKind,
  /** The submitting gamespace. */
  gamespaceId: t.string,
  /** Whose generated answer it was; null for a canary. */
  otherGamespaceId: nullable(t.string),
  question: t.type({
    /** 0-based. */
    sectionIndex: t.number,
    sectionName: nullable(t.string),
    /** 0-based. */
    questionIndex: t.number,
    text: t.string,
  }),
  submitterNames: t.string,
  ownerNames: t.string,
  /** The answer submitted. */
  answer: t.string,
  /** The alert in one sentence. */
  text: t.string,
});
export type Alert = t.TypeOf<typeof Alert>;

/** GET alerts[?workspaceId=]: one workspace's alerts, or those of every workspace observed. */
export const listAlerts =
  (http: HttpClient) =>
  (workspaceId: string | null, signal: AbortSignal): TE.TaskEither<ApiError, Alert[]> =>
    http.request(t.array(Alert), {
      method: 'GET',
      path:
        workspaceId === null ? 'alerts' : `alerts?workspaceId=${encodeURIComponent(workspaceId)}`,
      signal,
    });
