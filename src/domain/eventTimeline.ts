/**
 * The admin's event log as a timeline a person reads: when, on which screen, what happened and
 * the state before and after, instead of actor session ids and `xstate.*` event names.
 */

/** One recorded event (src/app/eventLog.ts keeps them). */
export interface RecordedEvent {
  readonly seq: number;
  readonly at: number;
  readonly actorId: string;
  readonly event: { readonly type: string };
  readonly machine?: string;
  readonly before?: unknown;
  readonly after?: unknown;
}

/** What kind of thing happened, to filter on. */
export type EventKind = 'action' | 'result' | 'failure' | 'timer' | 'lifecycle';

export const EVENT_KINDS: Readonly<Record<EventKind, string>> = {
  action: 'Actions and updates',
  result: 'Work finished',
  failure: 'Work failed',
  timer: 'Timers',
  lifecycle: 'Screens opened and closed',
};

export interface TimelineEntry {
  readonly seq: number;
  /** Local wall-clock time with milliseconds: `09:14:03.120`. */
  readonly time: string;
  /** The screen or part of the app whose machine received it: `Workspace archive`. */
  readonly screen: string;
  readonly happened: string;
  readonly kind: EventKind;
  /**
   * The state before and after, as `editing › saving`; of parallel states only the regions that
   * changed; '' when not known.
   */
  readonly before: string;
  readonly after: string;
}

/** `workspaceArchive` -> `Workspace archive`, `hub-connection` -> `Hub connection`. */
export function wordsOf(identifier: string): string {
  const words = identifier
    .replace(/([a-z\d])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[\s_-]+/)
    .filter(Boolean)
    .map((word) => (/^[A-Z\d]+$/.test(word) && word.length > 1 ? word : word.toLowerCase()));
  const text = words.join(' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A state value as one line: `idle`, `editing › saving`, `a › x, b › y` for parallel states. */
export function stateText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value !== 'object' || value === null) return '';
  return Object.entries(value as Record<string, unknown>)
    .map(([key, inner]) => {
      const rest = stateText(inner);
      return rest === '' ? key : `${key} › ${rest}`;
    })
    .join(', ');
}

/**
 * The state path an invoked actor's id or a delay's id ends in, without the machine's id:
 * `0.workspaceArchive.downloading` -> `downloading`, `door.answering` -> `answering`.
 */
function statePathOf(id: string, machine: string | undefined): string {
  const parts = id.split('.');
  const at = machine === undefined ? -1 : parts.indexOf(machine);
  const rest = at >= 0 ? parts.slice(at + 1) : parts.filter((part) => !/^\d+$/.test(part));
  return rest.join(' › ');
}

function describeType(type: string, machine: string | undefined): [EventKind, string] {
  if (type === 'xstate.init') return ['lifecycle', 'Opened'];
  if (type === 'xstate.stop') return ['lifecycle', 'Closed'];
  const done = /^xstate\.done\.actor\.(.*)$/.exec(type);
  if (done) return ['result', `Finished: ${statePathOf(done[1]!, machine) || 'work'}`];
  const error = /^xstate\.error\.actor\.(.*)$/.exec(type);
  if (error) return ['failure', `Failed: ${statePathOf(error[1]!, machine) || 'work'}`];
  const after = /^xstate\.after\.(\d+)\.(.*)$/.exec(type);
  if (after) {
    const where = statePathOf(after[2]!, machine);
    return ['timer', `${Number(after[1]) / 1000} s passed${where ? ` in ${where}` : ''}`];
  }
  // Our events are `domain.fact` (`document.edited`, `vm.startRequested`).
  const [domain, ...fact] = type.split('.');
  if (fact.length === 0) return ['action', wordsOf(type)];
  return ['action', `${wordsOf(domain!)}: ${wordsOf(fact.join(' ')).toLowerCase()}`];
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** `at` as local `HH:MM:SS.mmm`. */
export function clockOf(at: number): string {
  const d = new Date(at);
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null;

/**
 * The parts of two state values that differ: of parallel states, only the regions the event
 * moved (`{form: 'saving'}` out of `{list: 'loaded', form: 'saving'}`); all of both if none did.
 */
export function changedParts(before: unknown, after: unknown): [unknown, unknown] {
  if (!isRecord(before) || !isRecord(after)) return [before, after];
  const keys = Object.keys(after).filter((key) => stateText(before[key]) !== stateText(after[key]));
  if (keys.length === 0) return [before, after];
  const pick = (value: Record<string, unknown>) =>
    Object.fromEntries(keys.filter((key) => key in value).map((key) => [key, value[key]]));
  return [pick(before), pick(after)];
}

/** One recorded event as the timeline shows it. */
export function timelineEntryOf(entry: RecordedEvent): TimelineEntry {
  const [kind, happened] = describeType(entry.event.type, entry.machine);
  const [before, after] = changedParts(entry.before, entry.after);
  return {
    seq: entry.seq,
    time: clockOf(entry.at),
    screen: wordsOf(entry.machine ?? entry.actorId),
    happened,
    kind,
    before: stateText(before),
    after: stateText(after),
  };
}

export interface TimelineFilter {
  /** '' for every screen. */
  screen: string;
  /** The kinds shown; all when empty. */
  kinds: readonly EventKind[];
  /** Words that what happened, the screen or a state must hold; '' for all. */
  text: string;
}

/** Whether an entry passes the filter. */
export function matchesFilter(entry: TimelineEntry, filter: TimelineFilter): boolean {
  if (filter.screen !== '' && entry.screen !== filter.screen) return false;
  if (filter.kinds.length > 0 && !filter.kinds.includes(entry.kind)) return false;
  const haystack = `${entry.happened} ${entry.screen} ${entry.before} ${entry.after}`.toLowerCase();
  return filter.text
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .every((word) => haystack.includes(word));
}
