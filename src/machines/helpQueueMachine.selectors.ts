import { helpStatusLine, queueStatusLine, waitedText } from '../domain/help';
import type { HelpQueueSnapshot } from './helpQueueMachine';

/** Open first, oldest first, then the last closed. */
export const selectQueueRequests = (snapshot: HelpQueueSnapshot) => snapshot.context.requests;

export const selectQueueNow = (snapshot: HelpQueueSnapshot): number => snapshot.context.now;

export const selectQueueError = (snapshot: HelpQueueSnapshot): string | null =>
  snapshot.context.error;

export const selectIsQueueLoading = (snapshot: HelpQueueSnapshot): boolean =>
  snapshot.hasTag('loading');

/** The request a claim or an answer is on its way for. */
export const selectActingOn = (snapshot: HelpQueueSnapshot): string | null =>
  snapshot.context.actingOn;

export const selectAnswers = (snapshot: HelpQueueSnapshot) => snapshot.context.answers;

/** Whether Claim and Answer may be sent now (one at a time). */
export const selectCanAct = (snapshot: HelpQueueSnapshot): boolean => snapshot.matches('ready');

/** How many requests are open. */
export const selectOpenCount = (snapshot: HelpQueueSnapshot): number =>
  snapshot.context.requests.filter((r) => r.status === 'open').length;

export { helpStatusLine, queueStatusLine, waitedText };
