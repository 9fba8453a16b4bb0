import { describe, expect, it } from 'vitest';
import {
  DEFAULT_RESULT_SORT,
  nextSort,
  questionSetCount,
  resultsFileName,
  sortResults,
  type SortableResult,
} from './results';
import { UNSET_DATE } from './time';

const result = (over: Partial<SortableResult> & { gamespaceId: string }): SortableResult => ({
  players: [{ name: 'Ann' }],
  startTime: '2026-11-30T10:00:00+00:00',
  endTime: UNSET_DATE,
  secondsUsed: 60,
  isRunning: true,
  score: 0,
  attempts: 0,
  questionSets: [],
  ...over,
});

const ids = (rows: SortableResult[]) => rows.map((r) => r.gamespaceId);

describe('results sorting', () => {
  const a = result({
    gamespaceId: 'a',
    players: [{ name: 'zoe' }],
    score: 50,
    attempts: 2,
    secondsUsed: 300,
    startTime: '2026-11-30T09:00:00+00:00',
    endTime: '2026-11-30T09:05:00+00:00',
    isRunning: false,
    questionSets: [{ score: 20 }, { score: 30 }],
  });
  const b = result({
    gamespaceId: 'b',
    players: [{ name: 'Bob' }, { name: 'amy' }],
    score: 80,
    attempts: 1,
    secondsUsed: 100,
    questionSets: [{ score: 80 }],
  });
  const c = result({
    gamespaceId: 'c',
    players: [{ name: 'carl' }],
    score: 50,
    attempts: 3,
    secondsUsed: 200,
    startTime: UNSET_DATE,
    isRunning: false,
    questionSets: [{ score: 10 }, { score: 40 }],
  });
  const rows = [a, b, c];

  it('starts newest first', () => {
    expect(ids(sortResults(rows, DEFAULT_RESULT_SORT))).toEqual(['b', 'a', 'c']);
  });

  it('sorts scores highest first, ties by gamespace id, and turns round on a second click', () => {
    const byScore = nextSort(DEFAULT_RESULT_SORT, 'score');
    expect(byScore).toEqual({ column: 'score', direction: 'descending' });
    expect(ids(sortResults(rows, byScore))).toEqual(['b', 'a', 'c']);
    const back = nextSort(byScore, 'score');
    expect(back).toEqual({ column: 'score', direction: 'ascending' });
    expect(ids(sortResults(rows, back))).toEqual(['a', 'c', 'b']);
  });

  it('sorts players by name, case aside, a team by its first name in order', () => {
    const sort = nextSort(DEFAULT_RESULT_SORT, 'players');
    expect(sort.direction).toBe('ascending');
    // b's team reads "amy, bob".
    expect(ids(sortResults(rows, sort))).toEqual(['b', 'c', 'a']);
  });

  it('puts a game never started first by start and a running one last by end', () => {
    expect(ids(sortResults(rows, { column: 'started', direction: 'ascending' }))).toEqual([
      'c',
      'a',
      'b',
    ]);
    expect(ids(sortResults(rows, { column: 'ended', direction: 'ascending' }))).toEqual([
      'a',
      'b',
      'c',
    ]);
  });

  it('sorts by time used, attempts, status and a set whose score a game may lack', () => {
    expect(ids(sortResults(rows, { column: 'timeUsed', direction: 'descending' }))).toEqual([
      'a',
      'c',
      'b',
    ]);
    expect(ids(sortResults(rows, { column: 'attempts', direction: 'ascending' }))).toEqual([
      'b',
      'a',
      'c',
    ]);
    expect(ids(sortResults(rows, { column: 'status', direction: 'descending' }))).toEqual([
      'b',
      'a',
      'c',
    ]);
    expect(ids(sortResults(rows, { column: 'set:1', direction: 'descending' }))).toEqual([
      'c',
      'a',
      'b',
    ]);
  });

  it('leaves the given rows as they were', () => {
    const given = [a, b, c];
    sortResults(given, { column: 'score', direction: 'ascending' });
    expect(ids(given)).toEqual(['a', 'b', 'c']);
  });

  it('counts the set columns the table needs', () => {
    expect(questionSetCount(rows)).toBe(2);
    expect(questionSetCount([])).toBe(0);
  });
});

describe('resultsFileName', () => {
  it('names the file after the workspace in ASCII, and the day', () => {
    expect(resultsFileName('Red, Lab', '2026-11-30T12:00:00+00:00')).toBe(
      'red-lab-results-2026-11-30.csv',
    );
    expect(resultsFileName('Café "Lab" #2', '2026-01-02T00:00:00Z')).toBe(
      'caf-lab-2-results-2026-01-02.csv',
    );
    expect(resultsFileName('!!!', '2026-01-02T00:00:00Z')).toBe('workspace-results-2026-01-02.csv');
  });
});
