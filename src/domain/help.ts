import { countdownText } from './time';

/**
 * Help requests as people read them (server/core/helpRequests.ts): the player's page says who is
 * on theirs and shows the answer; the observers' queue lists open ones first, oldest first, with
 * how long each has waited.
 */

/** The longest message and answer the server takes (after trimming). */
export const MAX_HELP_MESSAGE = 500;
export const MAX_HELP_ANSWER = 2_000;

/** A request as it comes over the wire (src/api/help.ts). */
export interface HelpFacts {
  readonly id: string;
  readonly gamespaceId: string;
  readonly workspaceId: string;
  readonly status: 'open' | 'answered' | 'cancelled';
  /** ISO 8601. */
  readonly raisedAt: string;
  readonly claimedByName?: string;
  readonly answeredByName?: string;
}

/** A text the server takes: 1 to `max` characters once trimmed. */
export const isSendable = (text: string, max: number): boolean => {
  const trimmed = text.trim();
  return trimmed.length > 0 && trimmed.length <= max;
};

const raisedMs = (r: HelpFacts) => Date.parse(r.raisedAt) || 0;

/** Open first, each part oldest first (the server's order, kept as requests change live). */
export function queueOrder<T extends HelpFacts>(requests: readonly T[]): T[] {
  return [...requests].sort(
    (a, b) =>
      Number(b.status === 'open') - Number(a.status === 'open') ||
      raisedMs(a) - raisedMs(b) ||
      a.id.localeCompare(b.id),
  );
}

/** The list with `request` in it (replacing the one of the same id), in queue order. */
export function mergeHelp<T extends HelpFacts>(requests: readonly T[], request: T): T[] {
  return queueOrder([...requests.filter((r) => r.id !== request.id), request]);
}

/** What a player's page shows of a gamespace's requests: the open one, else the last raised. */
export function latestHelp<T extends HelpFacts>(requests: readonly T[]): T | null {
  const open = requests.find((r) => r.status === 'open');
  if (open) return open;
  return requests.reduce<T | null>(
    (last, r) => (last === null || raisedMs(r) >= raisedMs(last) ? r : last),
    null,
  );
}

/**
 * Whether a request heard live replaces the one a player's page shows: the same request changed,
 * or one raised since (a teammate's, after the last was closed).
 */
export const replacesHelp = (shown: HelpFacts | null, heard: HelpFacts): boolean =>
  shown === null || shown.id === heard.id || raisedMs(heard) >= raisedMs(shown);

/** The player's line for their request. */
export function helpStatusLine(request: HelpFacts): string {
  if (request.status === 'answered')
    return `Answered by ${request.answeredByName || 'an observer'}`;
  if (request.status === 'cancelled') return 'Cancelled';
  return request.claimedByName ? `${request.claimedByName} is on it` : 'Waiting for someone';
}

/** The observers' line for a request: who is on it, the viewer included. */
export function queueStatusLine(
  request: HelpFacts & { claimedById?: string },
  viewerId: string | null,
): string {
  if (request.status !== 'open') return helpStatusLine(request);
  if (!request.claimedById) return 'Unclaimed';
  if (viewerId && request.claimedById === viewerId) return 'You are on it';
  return `${request.claimedByName || 'Someone'} is on it`;
}

/** How long an open request has waited, or how long it was open, as '3m' ('0s' at first). */
export function waitedText(request: HelpFacts & { closedAt?: string }, now: number): string {
  const until = request.status === 'open' ? now : Date.parse(request.closedAt ?? '') || now;
  return countdownText(until - raisedMs(request));
}
