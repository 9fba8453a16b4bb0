import { filter, fromEvent, map, tap, type Observable, type OperatorFunction } from 'rxjs';

/** The workspace editor sections reached with Ctrl-1 .. Ctrl-6, in order (About page). */
const SECTION_KEYS = ['settings', 'templates', 'document', 'challenge', 'files', 'play'] as const;

/** What a global shortcut asks for. Sidebar intents are sidebarMachine events as they are. */
export type HotkeyIntent =
  | { type: 'sidebar.openRequested' }
  | { type: 'sidebar.toggleRequested' }
  | { type: 'navigation.homeRequested' }
  | { type: 'navigation.sectionRequested'; section: (typeof SECTION_KEYS)[number] };

/** The part of a KeyboardEvent the shortcuts read. */
export interface KeyPress {
  ctrlKey: boolean;
  altKey: boolean;
  metaKey: boolean;
  shiftKey: boolean;
  code: string;
  key: string;
  preventDefault(): void;
}

/** Letter shortcuts replace the browser's own (open file, history, address bar). */
const LETTERS: Record<string, HotkeyIntent> = {
  o: { type: 'sidebar.openRequested' },
  l: { type: 'sidebar.toggleRequested' },
  h: { type: 'navigation.homeRequested' },
};

function letterOf(press: KeyPress): string {
  // `code` names the physical key on any layout; `key` covers synthetic events without one.
  const match = /^Key([A-Z])$/.exec(press.code);
  return (match?.[1] ?? press.key).toLowerCase();
}

function digitOf(press: KeyPress): number {
  const match = /^Digit([1-6])$/.exec(press.code) ?? /^([1-6])$/.exec(press.key);
  return match?.[1] ? Number(match[1]) : 0;
}

/** The intent of a key press, or null when it is no shortcut (only plain Ctrl combinations). */
export function hotkeyIntent(press: KeyPress): HotkeyIntent | null {
  if (!press.ctrlKey || press.altKey || press.metaKey || press.shiftKey) return null;
  const letter = LETTERS[letterOf(press)];
  if (letter) return letter;
  const digit = digitOf(press);
  const section = SECTION_KEYS[digit - 1];
  return section ? { type: 'navigation.sectionRequested', section } : null;
}

/**
 * Key presses to shortcut intents. Letter shortcuts cancel the browser's default action; digit
 * shortcuts do not, because outside a workspace they mean nothing to us and Ctrl-1..6 still
 * switches browser tabs.
 */
export function toHotkeyIntents(): OperatorFunction<KeyPress, HotkeyIntent> {
  return (presses) =>
    presses.pipe(
      map((press) => ({ press, intent: hotkeyIntent(press) })),
      filter((hit): hit is { press: KeyPress; intent: HotkeyIntent } => hit.intent !== null),
      tap(({ press, intent }) => {
        if (intent.type !== 'navigation.sectionRequested') press.preventDefault();
      }),
      map(({ intent }) => intent),
    );
}

/** Global shortcuts pressed anywhere in `target` (the document). */
export function hotkeys$(target: EventTarget): Observable<HotkeyIntent> {
  return fromEvent<KeyboardEvent>(target, 'keydown').pipe(toHotkeyIntents());
}
