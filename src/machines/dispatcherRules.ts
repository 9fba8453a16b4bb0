import type { Dispatch } from '../api/dispatch';

/** What the console sends for a typed command (spec §2 Dispatcher). */
export interface ParsedCommand {
  /** null: every listening agent. */
  targetName: string | null;
  trigger: string;
}

/**
 * A typed command: trimmed and split on spaces; a first word in square brackets names the
 * target and is not part of the trigger. Nothing to run (an empty line, or a target alone) is
 * null: the console sends nothing, as the server would refuse an empty trigger.
 */
export function parseCommand(text: string): ParsedCommand | null {
  const words = text.trim().split(' ');
  const first = words[0] ?? '';
  const targeted = first.length >= 2 && first.startsWith('[') && first.endsWith(']');
  const trigger = (targeted ? words.slice(1) : words).join(' ').trim();
  if (trigger === '') return null;
  const target = targeted ? first.slice(1, -1).trim() : '';
  return { targetName: target === '' ? null : target, trigger };
}

/** An ISO time as a number to compare; a missing or unreadable one is the oldest. */
const timeOf = (iso: string | null | undefined): number => {
  const ms = iso ? Date.parse(iso) : NaN;
  return Number.isNaN(ms) ? Number.NEGATIVE_INFINITY : ms;
};

/**
 * A dispatch heard live (spec §4 Dispatch live events): a known id takes the result, error and
 * whenUpdated of the event only when the event is newer (events may arrive after the answer was
 * already loaded); an unknown id is appended. The same array when nothing changes.
 */
export function mergeDispatch(entries: readonly Dispatch[], heard: Dispatch): Dispatch[] {
  const index = entries.findIndex((entry) => entry.id === heard.id);
  if (index < 0) return [...entries, heard];
  const known = entries[index]!;
  if (timeOf(heard.whenUpdated) <= timeOf(known.whenUpdated)) return entries as Dispatch[];
  const updated: Dispatch = {
    ...known,
    result: heard.result ?? null,
    error: heard.error ?? null,
    whenUpdated: heard.whenUpdated ?? null,
  };
  return entries.map((entry, i) => (i === index ? updated : entry));
}

/** A deleted dispatch leaves the log. */
export const removeDispatch = (entries: readonly Dispatch[], id: string): Dispatch[] =>
  entries.filter((entry) => entry.id !== id);

/** An answer's time, or null while no agent has answered ('0001-01-01…' is .NET's no date). */
export const answeredAt = (dispatch: Dispatch): string | null =>
  dispatch.whenUpdated && timeOf(dispatch.whenUpdated) > 0 ? dispatch.whenUpdated : null;
