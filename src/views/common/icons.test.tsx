// @vitest-environment jsdom
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import { describe, expect, it } from 'vitest';
import * as icons from './icons';
import { Icon, piSpinner, piThumbtack } from './icons';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

function render(element: React.ReactElement) {
  const container = document.createElement('div');
  act(() => createRoot(container).render(element));
  return container.querySelector('svg')!;
}

const shapes = Object.entries(icons).filter(
  (entry): entry is [string, icons.IconShape] => typeof entry[1] === 'object',
);

describe('Icon', () => {
  it('is hidden from assistive technology and out of the tab order unless labelled', () => {
    const svg = render(<Icon shape={piThumbtack} />);
    expect(svg.getAttribute('aria-hidden')).toBe('true');
    expect(svg.getAttribute('role')).toBeNull();
    expect(svg.getAttribute('focusable')).toBe('false');
    expect(svg.dataset.icon).toBe('thumbtack');
    expect(svg.getAttribute('fill-rule')).toBe('evenodd');
  });

  it('is an image named by its label when it stands alone', () => {
    const svg = render(<Icon shape={piSpinner} spin label="Running" />);
    expect(svg.getAttribute('role')).toBe('img');
    expect(svg.getAttribute('aria-label')).toBe('Running');
    expect(svg.getAttribute('aria-hidden')).toBeNull();
    expect(svg.classList).toContain('tp-icon-spin');
  });

  it('draws in the text colour at the text size, with extra classes kept', () => {
    const svg = render(<Icon shape={piSpinner} className="tp-muted" />);
    expect(svg.getAttribute('fill')).toBe('currentColor');
    expect(svg.getAttribute('width')).toBe('1em');
    expect(svg.getAttribute('height')).toBe('1em');
    expect([...svg.classList]).toEqual(['tp-icon', 'tp-muted']);
  });

  it.each(shapes)('%s is named after its export and drawn by distinct paths', (id, shape) => {
    const pascal = shape.name.replace(/(^|-)([a-z])/g, (_, _dash, c: string) => c.toUpperCase());
    expect(id).toBe(`pi${pascal}`);
    expect(shape.paths.length).toBeGreaterThan(0);
    expect(new Set(shape.paths).size).toBe(shape.paths.length);
    for (const d of shape.paths) expect(d).toMatch(/^M[-\d. MmLlHhVvCcSsAaZz]+$/);
  });
});
