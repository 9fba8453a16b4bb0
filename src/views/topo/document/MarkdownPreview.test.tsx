// @vitest-environment jsdom
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it } from 'vitest';
import { MarkdownPreview } from './MarkdownPreview';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

let root: Root | null = null;
let container: HTMLElement | null = null;

afterEach(() => {
  act(() => root?.unmount());
  container?.remove();
  root = null;
  container = null;
});

function render(markdown: string) {
  container = document.createElement('div');
  document.body.append(container);
  const r = createRoot(container);
  root = r;
  act(() => r.render(<MarkdownPreview markdown={markdown} />));
  return container;
}

describe('MarkdownPreview', () => {
  it('renders the markdown with images from the docs folder', () => {
    const el = render('# Guide\n\n![net](/docs/ws-1/net-ab12.png)\n\n| a |\n|---|\n| 1 |');
    const preview = el.querySelector('[aria-label="Document preview"]');
    expect(preview?.querySelector('h1')?.textContent).toBe('Guide');
    const image = preview?.querySelector('img');
    expect(image?.getAttribute('src')).toBe('/docs/ws-1/net-ab12.png');
    expect(image?.classList.contains('img-fluid')).toBe(true);
    expect(preview?.querySelector('table.table')).not.toBeNull();
  });

  it('inserts no script, handler or javascript: link into the page', () => {
    const el = render(
      '<script>window.pwned = 1</script>\n\n<img src=x onerror="window.pwned = 1">\n\n[x](javascript:alert(1))',
    );
    expect(el.querySelector('script')).toBeNull();
    expect(el.querySelector('img')?.hasAttribute('onerror')).toBe(false);
    expect(el.querySelector('a')?.hasAttribute('href')).toBe(false);
  });

  it('follows the markdown as it changes', () => {
    const el = render('first');
    act(() => root?.render(<MarkdownPreview markdown="**second**" />));
    expect(el.querySelector('strong')?.textContent).toBe('second');
    expect(el.textContent).not.toContain('first');
  });
});
