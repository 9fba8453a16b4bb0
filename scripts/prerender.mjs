/**
 * The home page, rendered at build time: `home.html` beside `index.html`, which the server sends
 * for `/` (server/plugins/spa.ts) so that the page's title is painted as soon as the HTML and CSS
 * arrive, without waiting for the scripts, settings.json and React. The markup comes from the
 * app's own routes and views (src/app/prerender.tsx), so it is what the app renders first and
 * what it hydrates.
 *
 * Used by vite.config.ts; it reads the built index.html, so its script and style tags are the
 * build's own.
 */
import { runnerImport } from 'vite';

const STYLESHEET_STUB = '\0topoplay-prerender-stylesheet';

/** Resolves every `.css` import to an empty module. */
const noStylesheets = {
  name: 'topoplay-prerender-no-stylesheets',
  enforce: 'pre',
  resolveId(source) {
    return /\.css(\?.*)?$/.test(source) ? STYLESHEET_STUB : null;
  },
  load(id) {
    return id === STYLESHEET_STUB ? 'export default "";' : null;
  },
};

export function prerenderPlugin() {
  return {
    name: 'topoplay-prerender',
    apply: 'build',
    enforce: 'post',
    async generateBundle(_options, bundle) {
      const index = bundle['index.html'];
      if (!index || index.type !== 'asset') this.error('prerender: the build wrote no index.html');
      const { module } = await runnerImport('/src/app/prerender.tsx', {
        configFile: false,
        logLevel: 'warn',
        // The views' own stylesheets are in the build already; rendering markup needs none of
        // them, and this bare runner cannot load them.
        plugins: [noStylesheets],
      });
      this.emitFile({
        type: 'asset',
        fileName: module.HOME_PAGE_FILE,
        source: await module.renderHomePage(String(index.source)),
      });
    },
  };
}
