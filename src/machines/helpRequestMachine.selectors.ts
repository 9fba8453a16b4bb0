import { helpStatusLine } from '../domain/help';
import type { HelpRequestSnapshot } from './helpRequestMachine';

/** What the player's help panel shows. */
export type HelpView = 'loading' | 'idle' | 'composing' | 'open' | 'answered';

export function selectHelpView(snapshot: HelpRequestSnapshot): HelpView {
  if (snapshot.matches('loading')) return 'loading';
  if (snapshot.matches('composing') || snapshot.matches('raising')) return 'composing';
  if (snapshot.matches('open') || snapshot.matches('cancelling')) return 'open';
  if (snapshot.matches('answered')) return 'answered';
  return 'idle';
}

/** The request shown: the open one, else the last raised. */
export const selectHelpRequest = (snapshot: HelpRequestSnapshot) => snapshot.context.request;

/** "Waiting for someone", "{name} is on it", "Answered by {name}"; null with no request. */
export const selectHelpLine = (snapshot: HelpRequestSnapshot): string | null => {
  const request = snapshot.context.request;
  return request ? helpStatusLine(request) : null;
};

export const selectHelpDraft = (snapshot: HelpRequestSnapshot): string => snapshot.context.draft;

export const selectHelpError = (snapshot: HelpRequestSnapshot): string | null =>
  snapshot.context.error;

export const selectIsHelpBusy = (snapshot: HelpRequestSnapshot): boolean => snapshot.hasTag('busy');

export const selectIsHelpClaimed = (snapshot: HelpRequestSnapshot): boolean =>
  snapshot.hasTag('claimed');

export const selectCanSendHelp = (snapshot: HelpRequestSnapshot): boolean =>
  snapshot.can({ type: 'help.sendRequested' });

export const selectCanCancelHelp = (snapshot: HelpRequestSnapshot): boolean =>
  snapshot.can({ type: 'help.cancelRequested' });
