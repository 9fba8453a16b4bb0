// The home page as the build writes it, already rendered, for the server to send on `/` so that
// its title is painted with the HTML instead of after the scripts (src/app/prerender.tsx writes
// it, server/plugins/spa.ts sends it).

/** The file beside index.html that holds the rendered home page. */
export const HOME_PAGE_FILE = 'home.html';

/** Stands for the application's name in that file; the server writes the configured name in. */
export const APP_NAME_SLOT = '%TOPOPLAY_APP_NAME%';

/**
 * Set while the SPA keeps a page to go back to (`last` in its local settings): home then goes
 * there at once, so the server sends the plain page rather than home's content.
 */
export const RESTORE_PENDING_COOKIE = 'topoplay-restore';

/**
 * The query that asks for home itself: `/` alone goes back to the remembered page on a page
 * load's first visit (spec §2 Route table), but the top bar's Home and brand, and Ctrl+H, reach
 * home in one step (issue 29).
 */
export const HOME_ITSELF_PARAM = 'home';

/** Home itself, never the remembered page (see HOME_ITSELF_PARAM). */
export const HOME_ITSELF = `/?${HOME_ITSELF_PARAM}`;

/** `text` as HTML text or attribute value. */
export function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}
