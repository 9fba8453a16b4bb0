// What the console says about a machine's clipboard: which directions work, in a sentence the
// player reads beside the Copy button.

export interface ClipboardDirections {
  /** Text copied inside the machine reaches the browser's clipboard. */
  copy: boolean;
  /** Text from the browser is typed into the machine. */
  paste: boolean;
  /**
   * How, when copy works: `agent`, Copy reads what topoplay-copy was given and Paste types;
   * `vdagent`, the machine's desktop shares its clipboard with the console (the VNC extended
   * clipboard): what is copied there reaches the browser's clipboard as it is copied, and Paste
   * puts the browser's clipboard on the machine's. Absent in older answers: `agent`.
   */
  via?: ClipboardVia;
}

export type ClipboardVia = 'agent' | 'vdagent';

/** The machine's desktop shares its clipboard with the console itself. */
export const sharesClipboard = (directions: ClipboardDirections | null): boolean =>
  directions?.copy === true && directions.via === 'vdagent';

/** The command that hands text to the console inside the machine (stock images, the sim). */
export const COPY_COMMAND = 'topoplay-copy';

export const BOTH_WAYS =
  `Copy and paste both ways: Paste types your clipboard into the machine; to copy out, ` +
  `give the text to ${COPY_COMMAND} in the machine (some-command | ${COPY_COMMAND}), then press Copy.`;
export const DESKTOP_BOTH_WAYS =
  "Copy and paste both ways: what you copy in the machine's desktop is on your clipboard; " +
  "Paste puts your clipboard on the machine's, then press Ctrl+V there.";
export const PASTE_ONLY = 'Paste only: this machine has no clipboard agent.';
export const COPY_ONLY = 'Copy only: nothing can be typed into this machine now.';
export const NEITHER = 'No copy and paste: the machine is not running.';

/** The sentence for what the machine's clipboard can do. */
export function clipboardSentence({ copy, paste, via }: ClipboardDirections): string {
  if (copy && paste) return via === 'vdagent' ? DESKTOP_BOTH_WAYS : BOTH_WAYS;
  if (paste) return PASTE_ONLY;
  if (copy) return COPY_ONLY;
  return NEITHER;
}

/** What the console says once the copied text is on the browser's clipboard. */
export const copiedNotice = (text: string): string =>
  text === ''
    ? `Nothing was copied in the machine yet: give it text with ${COPY_COMMAND} first.`
    : `Copied ${[...text].length} characters to your clipboard.`;
