import { createContext, useContext, useEffect } from 'react';

/** The product name that ends every page title (settings.appname); provided at the root. */
export const AppNameContext = createContext('Topoplay');

/**
 * `Green Lab · Document — Topoplay`: the parts from the general to the particular, joined by a
 * middle dot, then the product name. Empty parts (a name not loaded yet) are left out.
 */
export function pageTitle(appname: string, parts: readonly (string | null | undefined)[]): string {
  const named = parts.map((part) => part?.trim() ?? '').filter((part) => part !== '');
  return named.length === 0 ? appname : `${named.join(' · ')} — ${appname}`;
}

/**
 * Names the browser tab after the screen in view. Call it once per screen, from the view that
 * knows the names (effects run child first, so a parent calling it too would win).
 */
export function useTitle(...parts: (string | null | undefined)[]): void {
  const appname = useContext(AppNameContext);
  const title = pageTitle(appname, parts);
  useEffect(() => {
    document.title = title;
  }, [title]);
}
