import type { GamespaceChallenge } from '../api/gamespaces';
import { endedAt, session, timeUsed } from '../domain/session';
import { clockText, isUnsetDate } from '../domain/time';
import type {
  BrowserFilter,
  DeleteTarget,
  GamespaceBrowserSnapshot,
  GamespaceRow,
} from './gamespaceBrowserMachine';
import type { GamespaceDetail, GamespaceDetailSnapshot } from './gamespaceDetailMachine';
import type { PagedSearchActorRef, PagedSearchSnapshot } from './pagedSearchMachine';
import type { VmControllerActorRef } from './vmControllerMachine';

/** The paged search of gamespaces (invoked with the browser, so always there). */
export const selectGamespaceSearch = (
  snapshot: GamespaceBrowserSnapshot,
): PagedSearchActorRef<GamespaceRow> =>
  snapshot.children.search as PagedSearchActorRef<GamespaceRow>;

export const selectIsFullAdminView = (snapshot: GamespaceBrowserSnapshot): boolean =>
  snapshot.context.fullAdminView;

export const selectNow = (snapshot: GamespaceBrowserSnapshot): number => snapshot.context.now;

export const selectViewedId = (snapshot: GamespaceBrowserSnapshot): string | null =>
  snapshot.context.viewedId;

export const selectViewed = (snapshot: GamespaceBrowserSnapshot) => snapshot.context.viewed;

export const selectSelectedIds = (snapshot: GamespaceBrowserSnapshot): readonly string[] =>
  snapshot.context.selected;

export const selectCanDeleteSelected = (snapshot: GamespaceBrowserSnapshot): boolean =>
  snapshot.can({ type: 'gamespace.deleteSelectedRequested' });

/** What the open confirmation is about; null when none is open. */
export const selectConfirming = (snapshot: GamespaceBrowserSnapshot): DeleteTarget | null =>
  snapshot.matches('confirming') ? snapshot.context.pendingDelete : null;

export const selectIsDeleting = (snapshot: GamespaceBrowserSnapshot): boolean =>
  snapshot.hasTag('deleting');

export const selectBrowserErrors = (snapshot: GamespaceBrowserSnapshot): readonly string[] =>
  snapshot.context.errors;

/** Which toggle is on: the search's filter holds it. */
export const selectFilter = (snapshot: PagedSearchSnapshot<GamespaceRow>): BrowserFilter =>
  snapshot.context.filter.includes('inactive') ? 'inactive' : 'active';

export const selectTerm = (snapshot: PagedSearchSnapshot<GamespaceRow>): string =>
  snapshot.context.term;

export const selectSkip = (snapshot: PagedSearchSnapshot<GamespaceRow>): number =>
  snapshot.context.skip;

export const selectTake = (snapshot: PagedSearchSnapshot<GamespaceRow>): number =>
  snapshot.context.take;

export interface RowSession {
  /** HH:MM:SS to the start (before) or to the expiry (during play). */
  countdown: string;
  /** Over (dark) or not (green). */
  over: boolean;
  /**
   * Once over, when it ended, in the browser's words for dates: a game ended before its expiry
   * has no countdown left to show.
   */
  ended: string | null;
}

/** A row's session line. */
export function rowSession(row: GamespaceRow, now: number): RowSession {
  const s = session(row, now);
  const ended = endedAt(row, now);
  return {
    countdown: clockText(s.countdown),
    over: s.isOver,
    ended: ended === null ? null : new Date(ended).toLocaleString(),
  };
}

// The expanded row.

export const selectDetailTab = (snapshot: GamespaceDetailSnapshot) => snapshot.context.tab;

export const selectDetail = (snapshot: GamespaceDetailSnapshot): GamespaceDetail | null =>
  snapshot.context.detail;

export const selectDetailError = (snapshot: GamespaceDetailSnapshot): string | null =>
  snapshot.context.error;

export const selectIsDetailLoading = (snapshot: GamespaceDetailSnapshot): boolean =>
  snapshot.hasTag('loading');

export const selectDetailControllers = (
  snapshot: GamespaceDetailSnapshot,
): Readonly<Record<string, VmControllerActorRef>> => snapshot.context.controllers;

/** The Events tab's log (its own machine, gameTimelineMachine.selectors.ts). */
export const selectDetailTimeline = (snapshot: GamespaceDetailSnapshot) =>
  snapshot.context.timeline;

export interface SetScore {
  name: string;
  points: number;
  /** What the set is worth: the weights of its questions, in points. */
  maxPoints: number;
  /** Its questions found, of how many. */
  correct: number;
  questions: number;
}

export interface DetailSummary {
  /** 1-based, as launch settings number them; null when the server does not say. */
  variant: number | null;
  score: number;
  maxPoints: number;
  /** Submissions over all sets, and the limit (0: none). */
  attempts: number;
  maxAttempts: number;
  /** Points per question set: a set's score is its share of the whole challenge. */
  sets: SetScore[];
}

/** The summary's challenge figures, from the spec the server keeps for the gamespace. */
export function detailSummary(challenge: GamespaceChallenge): DetailSummary {
  const maxPoints = challenge.maxPoints ?? 0;
  const points = (fraction: number | null | undefined) => Math.round((fraction ?? 0) * maxPoints);
  return {
    variant: typeof challenge.variant === 'number' ? challenge.variant + 1 : null,
    score: points(challenge.score),
    maxPoints,
    attempts: challenge.submissions?.length ?? 0,
    maxAttempts: challenge.maxAttempts ?? 0,
    sets: (challenge.challenge?.sections ?? []).map((section, i) => {
      const questions = section.questions ?? [];
      return {
        name: section.name || `Set ${i + 1}`,
        points: points(section.score),
        maxPoints: points(questions.reduce((sum, q) => sum + (q.weight ?? 0), 0)),
        correct: questions.filter((q) => q.isCorrect === true).length,
        questions: questions.length,
      };
    }),
  };
}

/** The summary's times: when the game started, and how long is left or when it ended. */
export interface DetailTimes {
  started: string;
  /** While it is not over. */
  timeLeft: string | null;
  /** Once it is over. */
  ended: string | null;
  timeUsed: string | null;
}

export function detailTimes(row: GamespaceRow, now: number): DetailTimes {
  const { countdown, ended } = rowSession(row, now);
  const used = timeUsed(row, now);
  return {
    started: dateText(row.startTime),
    timeLeft: ended ? null : countdown,
    ended,
    timeUsed: used === null ? null : clockText(used),
  };
}

/** A date of the row as the summary shows it; unset dates show as a dash. */
export const dateText = (date: string | null): string =>
  isUnsetDate(date) ? '—' : new Date(date as string).toLocaleString();
