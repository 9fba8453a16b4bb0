// The replay's timeline: the game's events (src/api/gameEvents.ts) placed at their times within a
// console recording, counted from the recording's start.

/** The parts of a game event the timeline shows (src/api/gameEvents.ts GameEvent). */
export interface TimelineEvent {
  id: string;
  kind: string;
  /** ISO 8601, UTC. */
  at: string;
  actorName?: string;
  machineName?: string;
  detail?: string;
  score?: number;
}

/** A mark on the timeline: where it stands, and what a person reads on it. */
export interface TimelineMark {
  id: string;
  kind: string;
  /** Milliseconds after the recording began. */
  offsetMs: number;
  label: string;
}

const KIND_LABELS: Readonly<Record<string, string>> = {
  deploy: 'Deployed',
  'console.open': 'Console opened',
  'console.close': 'Console closed',
  'file.put': 'File put in',
  'clipboard.paste': 'Pasted into the machine',
  'clipboard.copy': 'Copied from the machine',
  submission: 'Submission',
  extension: 'Time extended',
  complete: 'Game ended',
};

/** 'Submission: score 40 (on web01, by Ann)'; an unknown kind reads as itself. */
export function markLabel(event: TimelineEvent): string {
  const what = KIND_LABELS[event.kind] ?? event.kind;
  const score = event.score === undefined ? '' : `: score ${event.score}`;
  const detail = event.detail ? ` ${event.detail}` : '';
  const where = [
    event.machineName ? `on ${event.machineName}` : '',
    event.actorName ? `by ${event.actorName}` : '',
  ].filter(Boolean);
  return `${what}${score}${detail}${where.length > 0 ? ` (${where.join(', ')})` : ''}`;
}

/**
 * The events that happened while the recording ran, as marks in time order. Events before the
 * start or after the end fall outside the timeline; an event with a date that does not parse is
 * left out rather than placed at a guess.
 */
export function timelineMarks(
  events: readonly TimelineEvent[],
  recording: { startedAt: string; durationMs: number },
): TimelineMark[] {
  const start = Date.parse(recording.startedAt);
  if (Number.isNaN(start)) return [];
  return events
    .map((event) => ({ event, offsetMs: Date.parse(event.at) - start }))
    .filter(
      ({ offsetMs }) =>
        !Number.isNaN(offsetMs) && offsetMs >= 0 && offsetMs <= recording.durationMs,
    )
    .sort((a, b) => a.offsetMs - b.offsetMs)
    .map(({ event, offsetMs }) => ({
      id: event.id,
      kind: event.kind,
      offsetMs,
      label: markLabel(event),
    }));
}

/** Where `offsetMs` stands on a timeline of `durationMs`, as a percentage from 0 to 100. */
export function timelinePercent(offsetMs: number, durationMs: number): number {
  if (durationMs <= 0) return 0;
  return Math.min(100, Math.max(0, (offsetMs / durationMs) * 100));
}
