/**
 * A gamespace's event log as people read it (the gamespace browser's Events tab, the replay
 * timeline): when, who, what happened to which machine, and the detail or score.
 */

/** What the log records (server/core/gameEvents.ts). */
export type GameEventKindName =
  | 'deploy'
  | 'console.open'
  | 'console.close'
  | 'file.put'
  | 'clipboard.paste'
  | 'clipboard.copy'
  | 'submission'
  | 'extension'
  | 'complete'
  | 'alert'
  | 'help.raise'
  | 'help.claim'
  | 'help.answer'
  | 'help.cancel';

export const GAME_EVENT_LABELS: Readonly<Record<GameEventKindName, string>> = {
  deploy: 'Machine deployed',
  'console.open': 'Console opened',
  'console.close': 'Console closed',
  'file.put': 'File put in',
  'clipboard.paste': 'Pasted into',
  'clipboard.copy': 'Copied from',
  submission: 'Answers submitted',
  extension: 'Game extended',
  complete: 'Game ended',
  alert: 'Answer-sharing alert',
  'help.raise': 'Asked for help',
  'help.claim': 'Help request claimed',
  'help.answer': 'Help request answered',
  'help.cancel': 'Help request cancelled',
};

/** An event as it comes over the wire (src/api/gameEvents.ts). */
export interface GameEventFacts {
  readonly id: string;
  /** A GameEventKindName, or a kind added later. */
  readonly kind: string;
  /** ISO 8601. */
  readonly at: string;
  readonly actorName?: string;
  readonly machineName?: string;
  readonly detail?: string;
  readonly score?: number;
}

export interface GameEventLine {
  readonly id: string;
  /** Local `YYYY-MM-DD HH:MM:SS`. */
  readonly time: string;
  /** The actor's name; `System` when no one did it (the janitor, a warm pool). */
  readonly who: string;
  /** The kind in words, with the machine's name when it concerns one. */
  readonly what: string;
  /** The detail; a submission's score in points when it has none (the server writes both). */
  readonly detail: string;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** `at` as local `YYYY-MM-DD HH:MM:SS`; the text as it came when it is no date. */
export function localTimeOf(at: string): string {
  const d = new Date(at);
  if (Number.isNaN(d.getTime())) return at;
  const date = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
  return `${date} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

const isKnownKind = (kind: string): kind is GameEventKindName =>
  Object.prototype.hasOwnProperty.call(GAME_EVENT_LABELS, kind);

/**
 * The words for an event's kind: its label, or for a kind added after this SPA was built, its
 * name in words (`help.requested`: `Help requested`).
 */
export function gameEventLabel(kind: string): string {
  if (isKnownKind(kind)) return GAME_EVENT_LABELS[kind];
  const words = kind.replace(/[._-]+/g, ' ').trim();
  return words === '' ? 'Event' : words.charAt(0).toUpperCase() + words.slice(1);
}

export function gameEventLine(event: GameEventFacts): GameEventLine {
  const label = gameEventLabel(event.kind);
  return {
    id: event.id,
    time: localTimeOf(event.at),
    who: event.actorName || 'System',
    what: event.machineName ? `${label}: ${event.machineName}` : label,
    detail: event.detail || (event.score === undefined ? '' : `Score ${event.score}`),
  };
}
