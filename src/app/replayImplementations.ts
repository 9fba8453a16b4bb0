import type RFB from '@novnc/novnc';
import type { RfbChannel } from '@novnc/novnc';
import * as E from 'fp-ts/Either';
import { fromCallback, fromPromise } from 'xstate';
import { listGameEvents, type GameEvent } from '../api/gameEvents';
import type { ApiError, HttpClient } from '../api/http';
import { getRecordingStream } from '../api/recordingStream';
import { listRecordings, type Recording } from '../api/recordings';
import {
  emptyReader,
  finishRecords,
  readRecords,
  type ScreenRecord,
} from '../domain/recordingStream';
import { timelineMarks } from '../domain/replayTimeline';
import {
  replayPlayerMachine,
  type LoadedRecording,
  type ReplayPlayerEvent,
  type ScreenCommand,
  type ScreenInput,
} from '../machines/replayPlayerMachine';
import { drawAsOne } from './replayDrawing';
import { saveBlob } from './saveBlob';

/** How much of the stream is read at a time: the page stays responsive through a long one. */
const READ_SLICE_BYTES = 1024 * 1024;
/** How much of the screen is fed at once while seeking, before the page gets a turn. */
const FEED_SLICE_BYTES = 512 * 1024;

const settle = async <A>(task: () => Promise<E.Either<ApiError, A>>): Promise<A> => {
  const result = await task();
  if (E.isLeft(result)) throw result.left;
  return result.right;
};

/** The stream read slice by slice into its screen records; a broken stream fails with why. */
async function readScreenRecords(blob: Blob, signal: AbortSignal): Promise<ScreenRecord[]> {
  let reader = emptyReader();
  const records: ScreenRecord[] = [];
  for (let at = 0; at < blob.size; at += READ_SLICE_BYTES) {
    signal.throwIfAborted();
    const chunk = new Uint8Array(await blob.slice(at, at + READ_SLICE_BYTES).arrayBuffer());
    const result = readRecords(reader, chunk);
    if (!result.ok) throw new Error(result.error);
    reader = result.reader;
    records.push(...result.screen);
  }
  const end = finishRecords(reader);
  if (!end.ok) throw new Error(end.error);
  return records;
}

/** The game's events; a server without the events route (404) has none to show. */
const gameEventsOrNone =
  (http: HttpClient) =>
  async (gamespaceId: string, signal: AbortSignal): Promise<GameEvent[]> => {
    const result = await listGameEvents(http)(gamespaceId, signal)();
    if (E.isRight(result)) return result.right;
    if (result.left.status === 404) return [];
    throw result.left;
  };

const notFound: ApiError = { status: 404, message: 'ResourceNotFound' };

/**
 * What noVNC reads the recording through: an open channel whose messages are the recorded bytes.
 * What noVNC sends goes nowhere: a recording cannot answer.
 */
class RecordedChannel implements RfbChannel {
  binaryType = 'arraybuffer';
  protocol = '';
  readyState = 'open';
  onopen: RfbChannel['onopen'] = null;
  onmessage: RfbChannel['onmessage'] = null;
  onclose: RfbChannel['onclose'] = null;
  onerror: RfbChannel['onerror'] = null;

  send(): void {}

  close(): void {
    if (this.readyState === 'closed') return;
    this.readyState = 'closed';
    this.onclose?.({ code: 1000, reason: '', wasClean: true });
  }

  deliver(bytes: Uint8Array): void {
    if (bytes.length > 0) this.onmessage?.({ data: bytes.slice().buffer });
  }

  /** Has noVNC read on what it has received (an empty message does that, and adds nothing). */
  nudge(): void {
    this.onmessage?.({ data: new ArrayBuffer(0) });
  }
}

/**
 * noVNC fed from the records. A seek forward feeds the records in between; a seek back starts a
 * fresh client and feeds it from the first record. Long feeds go in slices, each in a task of its
 * own, so that the page answers meanwhile; a newer seek takes over from an unfinished one.
 */
const screenActor = fromCallback<ScreenCommand, ScreenInput>(({ input, sendBack, receive }) => {
  const report = (event: ReplayPlayerEvent) => sendBack(event);
  const target = input.screen as HTMLElement;
  const { records } = input;
  let Rfb: typeof RFB | null = null;
  let rfb: RFB | null = null;
  let channel: RecordedChannel | null = null;
  let fed = 0;
  let seeking: ReturnType<typeof setTimeout> | null = null;
  let stopped = false;

  const onDisconnect = () =>
    report({ type: 'screen.failed', reason: 'the console client stopped reading it.' });
  const onSecurityFailure = (e: CustomEvent<{ reason?: string }>) =>
    report({ type: 'screen.failed', reason: e.detail.reason ?? 'its sign-in was refused.' });
  const onCredentials = () =>
    report({
      type: 'screen.failed',
      reason: 'it asks for a kind of sign-in a replay cannot give.',
    });

  const dropClient = () => {
    if (!rfb) return;
    rfb.removeEventListener('disconnect', onDisconnect);
    rfb.removeEventListener('securityfailure', onSecurityFailure);
    rfb.removeEventListener('credentialsrequired', onCredentials);
    rfb.disconnect();
    rfb = null;
    channel = null;
  };

  const freshClient = (Client: typeof RFB) => {
    dropClient();
    channel = new RecordedChannel();
    // A recording of a session signed in with a VNC password answers with any password: the
    // server's verdict is in the recording.
    rfb = new Client(target, channel, { credentials: { password: 'replay' } });
    rfb.viewOnly = true;
    rfb.scaleViewport = true;
    rfb.background = '#000000';
    rfb.addEventListener('disconnect', onDisconnect);
    rfb.addEventListener('securityfailure', onSecurityFailure);
    rfb.addEventListener('credentialsrequired', onCredentials);
    fed = 0;
  };

  // Each record goes in as the message it was: noVNC's handshake reads a step per message (after
  // its ProtocolVersion it waits for the next one), so bytes run together would stall it. An
  // empty message after them lets it read on anything a recorder ran together.
  // The records of one feed are drawn onto the visible canvas at once (replayDrawing.ts).
  const feed = (to: number) => {
    const into = channel;
    if (to <= fed || !into || !rfb) return;
    drawAsOne(rfb, () => {
      for (let i = fed; i < to; i++) into.deliver(records[i]?.bytes ?? new Uint8Array(0));
      into.nudge();
    });
    fed = to;
  };

  const seek = (toIndex: number, seq: number) => {
    if (seeking !== null) clearTimeout(seeking);
    seeking = null;
    if (!Rfb) return;
    if (!rfb || toIndex < fed) freshClient(Rfb);
    const step = () => {
      seeking = null;
      if (stopped) return;
      let end = fed;
      let size = 0;
      while (end < toIndex && (size === 0 || size < FEED_SLICE_BYTES)) {
        size += records[end]?.bytes.length ?? 0;
        end++;
      }
      feed(end);
      if (fed < toIndex) seeking = setTimeout(step, 0);
      else report({ type: 'screen.seeked', seq });
    };
    step();
  };

  // The seek the player asked for before noVNC arrived; later ones replace it.
  let wanted: { toIndex: number; seq: number } | null = input.seek;
  import('@novnc/novnc').then(
    ({ default: Client }) => {
      if (stopped) return;
      Rfb = Client;
      if (wanted) seek(wanted.toIndex, wanted.seq);
      wanted = null;
    },
    () => report({ type: 'screen.failed', reason: 'the console client could not be loaded.' }),
  );

  receive((command) => {
    if (command.type === 'screen.seek') {
      if (Rfb) seek(command.toIndex, command.seq);
      else wanted = { toIndex: command.toIndex, seq: command.seq };
    } else if (seeking === null) {
      feed(command.toIndex);
    }
  });

  return () => {
    stopped = true;
    if (seeking !== null) clearTimeout(seeking);
    dropClient();
  };
});

/** The recording's facts from its gamespace's list, its stream, and the game's events. */
const loadRecording = (http: HttpClient) =>
  fromPromise<LoadedRecording, { gamespaceId: string; recordingId: string }>(
    async ({ input, signal }) => {
      const [list, events] = await Promise.all([
        settle(listRecordings(http)(input.gamespaceId, signal)),
        gameEventsOrNone(http)(input.gamespaceId, signal),
      ]);
      const recording: Recording | undefined = list.find((r) => r.id === input.recordingId);
      if (!recording) throw notFound;
      const blob = await settle(getRecordingStream(http)(recording.id, signal));
      const records = await readScreenRecords(blob, signal);
      const durationMs = Math.max(recording.durationMs, records.at(-1)?.offsetMs ?? 0);
      return { recording, records, marks: timelineMarks(events, { ...recording, durationMs }) };
    },
  );

/** The recording's stream saved as a file (the server names its download; this names ours). */
const exportRecording = (http: HttpClient) =>
  fromPromise<void, { recordingId: string }>(async ({ input, signal }) => {
    const blob = await settle(getRecordingStream(http)(input.recordingId, signal, true));
    saveBlob(blob, `recording-${input.recordingId}.tprec`);
  });

/** The replay player with its effects over the SPA's HTTP client. */
export function replayPlayerLogic(http: HttpClient) {
  return replayPlayerMachine.provide({
    actors: {
      loadRecording: loadRecording(http),
      screen: screenActor,
      exportRecording: exportRecording(http),
    },
  });
}
