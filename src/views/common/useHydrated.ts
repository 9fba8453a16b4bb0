import { useSyncExternalStore } from 'react';

const noChanges = () => () => undefined;

/**
 * False while React takes over a page the server sent already rendered (and in that page's
 * markup), true in every other render. A control with no meaning without its script is disabled
 * in the rendered page, so that a click before the script runs is not silently lost.
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    noChanges,
    () => true,
    () => false,
  );
}
