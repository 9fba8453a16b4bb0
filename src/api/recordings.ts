import type * as TE from 'fp-ts/TaskEither';
import * as t from 'io-ts';
import { nullable } from './codecs';
import type { ApiError, HttpClient } from './http';

// Console recordings (ours): with recording on for a workspace, the server that bridges a console
// records what the viewer received, with timestamps, one recording per console session.
//
// A recording's stream (GET recording/{id}/stream, `application/octet-stream`, served compressed)
// is a sequence of records, each `u32 BE offset in ms since the session began | u8 channel |
// u32 BE length | bytes`. Channel 0 is the RFB stream as the viewer received it, from the
// server's ProtocolVersion on (the handshake with security None, ServerInit, then every server
// message), so a VNC client fed channel 0 in order draws what the viewer saw. Other channels are
// kept for later and are skipped by readers that do not know them.

export const RECORDING_CHANNEL_SCREEN = 0;

export const Recording = t.type({
  id: t.string,
  gamespaceId: t.string,
  machineId: t.string,
  machineName: t.string,
  /** The viewer whose console session this is. */
  userId: t.string,
  userName: t.string,
  /** ISO 8601, UTC. */
  startedAt: t.string,
  /** ISO 8601, UTC; null while the session is open. */
  endedAt: nullable(t.string),
  durationMs: t.number,
  /** Bytes of the stream, uncompressed. */
  bytes: t.number,
  /** The per-session cap was reached: the recording stops there. */
  truncated: t.boolean,
});
export type Recording = t.TypeOf<typeof Recording>;

/** GET gamespace/{id}/recordings: the gamespace's console recordings, oldest first. */
export const listRecordings =
  (http: HttpClient) =>
  (gamespaceId: string, signal: AbortSignal): TE.TaskEither<ApiError, Recording[]> =>
    http.request(t.array(Recording), {
      method: 'GET',
      path: `gamespace/${encodeURIComponent(gamespaceId)}/recordings`,
      signal,
    });

/** The stream's path under the API base; `?download=1` answers it as a file to save. */
export const recordingStreamPath = (id: string, download = false): string =>
  `recording/${encodeURIComponent(id)}/stream${download ? '?download=1' : ''}`;
