// @vitest-environment jsdom
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import { describe, expect, it } from 'vitest';
import { AppNameContext, pageTitle, useTitle } from './useTitle';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

function Editor({ name, section }: { name: string | null; section: string }) {
  useTitle(name, section);
  return null;
}

describe('pageTitle', () => {
  it('joins the parts with a middle dot and ends with the product name', () => {
    expect(pageTitle('Topoplay', ['Green Lab', 'Document'])).toBe(
      'Green Lab · Document — Topoplay',
    );
    expect(pageTitle('Topoplay', ['Home'])).toBe('Home — Topoplay');
  });

  it('leaves out parts not known yet, and is the product name alone without any', () => {
    expect(pageTitle('Topoplay', [null, ' ', 'Document'])).toBe('Document — Topoplay');
    expect(pageTitle('Topoplay', [undefined])).toBe('Topoplay');
  });
});

describe('useTitle', () => {
  it("names the tab after the screen with the deployment's product name, and follows the names as they load", () => {
    const root = createRoot(document.createElement('div'));
    const page = (name: string | null, section: string) => (
      <AppNameContext value="Mojo Lab">
        <Editor name={name} section={section} />
      </AppNameContext>
    );
    act(() => root.render(page(null, 'Settings')));
    expect(document.title).toBe('Settings — Mojo Lab');
    act(() => root.render(page('Green Lab', 'Settings')));
    expect(document.title).toBe('Green Lab · Settings — Mojo Lab');
    act(() => root.render(page('Green Lab', 'Document')));
    expect(document.title).toBe('Green Lab · Document — Mojo Lab');
    act(() => root.unmount());
  });
});
