// What the console says about a machine's clipboard: which directions work, in a sentence the
// player reads beside the Copy button.

export interface ClipboardDirections {
  /** Text copied inside the machine reaches the browser's clipboard. */
  copy: boolean;
  /** Text from the browser is typed into the machine. */
  paste: boolean;
}

/** The command that hands text to the console inside the machine (stock images, the sim). */
export const COPY_COMMAND = 'topoplay-copy';

export const BOTH_WAYS =
  `Copy and paste both ways: Paste types your clipboard into the machine; to copy out, ` +
  `give the text to ${COPY_COMMAND} in the machine (some-command | ${COPY_COMMAND}), then press Copy.`;
export const PASTE_ONLY = 'Paste only: this machine has no clipboard agent.';
export const COPY_ONLY = 'Copy only: nothing can be typed into this machine now.';
export const NEITHER = 'No copy and paste: the machine is not running.';

/** The sentence for what the machine's clipboard can do. */
export function clipboardSentence({ copy, paste }: ClipboardDirections): string {
  if (copy && paste) return BOTH_WAYS;
  if (paste) return PASTE_ONLY;
  if (copy) return COPY_ONLY;
  return NEITHER;
}

/** What the console says once the copied text is on the browser's clipboard. */
export const copiedNotice = (text: string): string =>
  text === ''
    ? `Nothing was copied in the machine yet: give it text with ${COPY_COMMAND} first.`
    : `Copied ${[...text].length} characters to your clipboard.`;
