import { isUnsetDate } from './time';

// The results table's sorting (the observers' Results view): which column, which way, and the
// order it gives. Every order ends with the gamespace id, so that rows that tie keep one order
// whatever order they arrived in.

/** A gamespace's result as far as sorting goes (src/api/results.ts has the whole of it). */
export interface SortableResult {
  gamespaceId: string;
  players: ReadonlyArray<{ name: string }>;
  startTime: string;
  endTime: string;
  secondsUsed: number;
  isRunning: boolean;
  score: number;
  attempts: number;
  questionSets: ReadonlyArray<{ score: number }>;
}

/** The fixed columns, and `set:{index}` for a question set's score. */
export type ResultColumn =
  'players' | 'started' | 'ended' | 'timeUsed' | 'status' | 'score' | 'attempts' | `set:${number}`;

export type SortDirection = 'ascending' | 'descending';

export interface ResultSort {
  column: ResultColumn;
  direction: SortDirection;
}

/** Newest first, as the server answers them. */
export const DEFAULT_RESULT_SORT: ResultSort = { column: 'started', direction: 'descending' };

/** Numbers read best highest first; names and dates from the start. */
const firstDirection = (column: ResultColumn): SortDirection =>
  column === 'score' || column === 'attempts' || column === 'timeUsed' || column.startsWith('set:')
    ? 'descending'
    : 'ascending';

/** A click on a column's heading: the other way round on the same column, else its first way. */
export function nextSort(current: ResultSort, column: ResultColumn): ResultSort {
  if (current.column === column) {
    return { column, direction: current.direction === 'ascending' ? 'descending' : 'ascending' };
  }
  return { column, direction: firstDirection(column) };
}

/** A date as a number to sort by; an unset one before every set one, or after with `last`. */
const timeOf = (date: string, last = false): number =>
  isUnsetDate(date)
    ? last
      ? Number.POSITIVE_INFINITY
      : Number.NEGATIVE_INFINITY
    : Date.parse(date);

const playersKey = (r: SortableResult) =>
  r.players
    .map((p) => p.name.toLocaleLowerCase())
    .sort()
    .join(', ');

function key(r: SortableResult, column: ResultColumn): number | string {
  switch (column) {
    case 'players':
      return playersKey(r);
    case 'started':
      return timeOf(r.startTime);
    case 'ended':
      // A game still running ends after every ended one.
      return timeOf(r.endTime, true);
    case 'timeUsed':
      return r.secondsUsed;
    case 'status':
      return r.isRunning ? 1 : 0;
    case 'score':
      return r.score;
    case 'attempts':
      return r.attempts;
    default: {
      // A game without that set (another variant) sorts below every game with it.
      const set = r.questionSets[Number(column.slice('set:'.length))];
      return set ? set.score : Number.NEGATIVE_INFINITY;
    }
  }
}

function compare(a: number | string, b: number | string): number {
  if (typeof a === 'string' && typeof b === 'string') return a.localeCompare(b);
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The results in the sort's order: a new array, the given one untouched. */
export function sortResults<R extends SortableResult>(
  results: readonly R[],
  sort: ResultSort,
): R[] {
  const sign = sort.direction === 'ascending' ? 1 : -1;
  return [...results].sort(
    (a, b) =>
      sign * compare(key(a, sort.column), key(b, sort.column)) ||
      (a.gamespaceId < b.gamespaceId ? -1 : a.gamespaceId > b.gamespaceId ? 1 : 0),
  );
}

/** How many question-set columns the table needs: the most sets any game has. */
export const questionSetCount = (results: readonly SortableResult[]): number =>
  results.reduce((most, r) => Math.max(most, r.questionSets.length), 0);

/**
 * The CSV file's name: the workspace's name in lowercase ASCII letters and digits joined by '-',
 * then the day (`isoDate`'s first ten characters). The server names its download so; the SPA
 * saves it under the same name.
 */
export function resultsFileName(workspaceName: string, isoDate: string): string {
  const name = workspaceName
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return `${name || 'workspace'}-results-${isoDate.slice(0, 10)}.csv`;
}
