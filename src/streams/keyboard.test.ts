import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import {
  hotkeyIntent,
  hotkeys$,
  toHotkeyIntents,
  type HotkeyIntent,
  type KeyPress,
} from './keyboard';

function press(code: string, modifiers: Partial<KeyPress> = {}): KeyPress & { prevented: boolean } {
  const key = code.replace(/^(Key|Digit)/, '').toLowerCase();
  const event = {
    ctrlKey: true,
    altKey: false,
    metaKey: false,
    shiftKey: false,
    code,
    key,
    prevented: false,
    preventDefault() {
      event.prevented = true;
    },
    ...modifiers,
  };
  return event;
}

const scheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));

describe('hotkeys', () => {
  it('maps Ctrl+O, Ctrl+L and Ctrl+H to their intents in order, skipping other keys', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const presses = cold('a-b-c-d-e|', {
        a: press('KeyO'),
        b: press('KeyA'),
        c: press('KeyL'),
        d: press('KeyH', { ctrlKey: false }),
        e: press('KeyH'),
      });
      expectObservable(presses.pipe(toHotkeyIntents())).toBe('a---c---e|', {
        a: { type: 'sidebar.openRequested' },
        c: { type: 'sidebar.toggleRequested' },
        e: { type: 'navigation.homeRequested' },
      } satisfies Record<string, HotkeyIntent>);
    });
  });

  it('cancels the browser action of letter shortcuts only', () => {
    const [o, l, h, two, a] = [
      press('KeyO'),
      press('KeyL'),
      press('KeyH'),
      press('Digit2'),
      press('KeyA'),
    ];
    scheduler().run(({ cold, expectObservable }) => {
      const source = cold('abcde|', { a: o, b: l, c: h, d: two, e: a });
      expectObservable(source.pipe(toHotkeyIntents())).toBe('abcd-|', {
        a: { type: 'sidebar.openRequested' },
        b: { type: 'sidebar.toggleRequested' },
        c: { type: 'navigation.homeRequested' },
        d: { type: 'navigation.sectionRequested', section: 'templates' },
      });
    });
    expect([o, l, h, two, a].map((p) => p.prevented)).toEqual([true, true, true, false, false]);
  });

  it('maps Ctrl-1 to Ctrl-6 to the workspace sections', () => {
    const sections = ['1', '2', '3', '4', '5', '6'].map(
      (digit) => hotkeyIntent(press(`Digit${digit}`)) as { section: string },
    );
    expect(sections.map((s) => s.section)).toEqual([
      'settings',
      'templates',
      'document',
      'challenge',
      'files',
      'play',
    ]);
    expect(hotkeyIntent(press('Digit7'))).toBeNull();
  });

  it('ignores combinations with other modifiers', () => {
    expect(hotkeyIntent(press('KeyO', { shiftKey: true }))).toBeNull();
    expect(hotkeyIntent(press('KeyO', { altKey: true }))).toBeNull();
    expect(hotkeyIntent(press('KeyO', { metaKey: true }))).toBeNull();
  });

  it('reads the key when the event has no physical code', () => {
    expect(hotkeyIntent(press('', { key: 'L' }))).toEqual({ type: 'sidebar.toggleRequested' });
  });

  it('listens to keydown on its target until unsubscribed', () => {
    const target = new EventTarget();
    const seen: HotkeyIntent[] = [];
    const keydown = (code: string) => {
      const event = Object.assign(new Event('keydown', { cancelable: true }), {
        ctrlKey: true,
        altKey: false,
        metaKey: false,
        shiftKey: false,
        code,
        key: '',
      });
      target.dispatchEvent(event);
      return event;
    };
    const subscription = hotkeys$(target).subscribe((intent) => seen.push(intent));
    const first = keydown('KeyO');
    subscription.unsubscribe();
    keydown('KeyL');
    expect(seen).toEqual([{ type: 'sidebar.openRequested' }]);
    expect(first.defaultPrevented).toBe(true);
  });
});
