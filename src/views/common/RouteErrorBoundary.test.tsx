// @vitest-environment jsdom
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RouteErrorBoundary } from './RouteErrorBoundary';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

function Page({ broken }: { broken: boolean }) {
  if (broken) throw new Error('render failed');
  return <p>fine</p>;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('RouteErrorBoundary', () => {
  it('shows the failure instead of the view, and recovers on another location', () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const container = document.createElement('div');
    const root = createRoot(container);
    act(() =>
      root.render(
        <RouteErrorBoundary resetKey="/a">
          <Page broken />
        </RouteErrorBoundary>,
      ),
    );
    expect(container.textContent).toContain('This page could not be displayed.');
    expect(container.textContent).toContain('render failed');

    act(() =>
      root.render(
        <RouteErrorBoundary resetKey="/a">
          <Page broken={false} />
        </RouteErrorBoundary>,
      ),
    );
    expect(container.textContent).toContain('This page could not be displayed.');

    act(() =>
      root.render(
        <RouteErrorBoundary resetKey="/b">
          <Page broken={false} />
        </RouteErrorBoundary>,
      ),
    );
    expect(container.textContent).toBe('fine');
    act(() => root.unmount());
  });
});
