import { clipboardSentence } from '../domain/clipboard';
import type { ConsoleClipboardSnapshot } from './consoleClipboardMachine';

/** The sentence saying which directions work for this machine; null before it is known. */
export const selectClipboardSentence = (snapshot: ConsoleClipboardSnapshot): string | null => {
  if (snapshot.matches('idle') || snapshot.matches('loading')) return null;
  const { directions } = snapshot.context;
  return directions
    ? clipboardSentence(directions)
    : 'Paste only: whether this machine can copy out could not be checked.';
};

/**
 * The sentence for a console that only watches the machine: nothing is pasted from it, whatever
 * the machine could take (an administrator watching may paste once they take control).
 */
export const selectWatchingClipboardSentence = (
  snapshot: ConsoleClipboardSnapshot,
): string | null => {
  if (snapshot.matches('idle') || snapshot.matches('loading')) return null;
  const { directions } = snapshot.context;
  return clipboardSentence({ copy: directions?.copy ?? false, paste: false });
};

export const selectCanCopy = (snapshot: ConsoleClipboardSnapshot): boolean =>
  snapshot.can({ type: 'console.copyRequested' });

export const selectIsCopying = (snapshot: ConsoleClipboardSnapshot): boolean =>
  snapshot.matches('copying') || snapshot.matches('writing');

export const selectCopyNotice = (snapshot: ConsoleClipboardSnapshot) => snapshot.context.notice;
export const selectCopyError = (snapshot: ConsoleClipboardSnapshot) => snapshot.context.error;
export const selectUnwrittenText = (snapshot: ConsoleClipboardSnapshot) =>
  snapshot.context.unwritten;
