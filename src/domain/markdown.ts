import createDOMPurify, { type Config, type DOMPurify, type WindowLike } from 'dompurify';
import { Marked } from 'marked';

/**
 * Markdown as authors write it and players read it (spec §9: tables, block quotes and images with
 * Bootstrap classes). The same text is later shown to players as a gamespace's guide, so it is
 * untrusted: marked passes raw HTML through, and DOMPurify then keeps only inert HTML.
 */

const markdown = new Marked({ gfm: true, breaks: false, async: false });

/** Schemes a link or an image may use; anything else (javascript:, vbscript:, data:...) goes. */
const SAFE_SCHEMES = new Set(['http:', 'https:', 'mailto:']);

/**
 * Images may be inlined as raster data. SVG is left out: it is a document that can carry script,
 * and raster images are all a lab guide needs.
 */
const SAFE_IMAGE_DATA = /^data:image\/(?:png|jpeg|gif|webp);/i;

/**
 * Browsers ignore these characters inside a URL's scheme (`java\tscript:`), so the check ignores
 * them too; it reads the attribute after the parser decoded entities (`&#x3A;`, `&colon;`).
 */
// eslint-disable-next-line no-control-regex -- control characters are exactly what it removes
const IGNORED_IN_URL = /[\u0000-\u0020\u007f-\u00a0\u1680\u180e\u2000-\u2029\u205f\u3000\ufeff]/g;

const SCHEME = /^([a-z][a-z0-9+.-]*):/i;

/**
 * Whether a URL taken from rendered markdown is inert: relative, a fragment, or one of the safe
 * schemes; `data:image/...` only where `allowImageData` (an <img>'s src).
 */
export function isSafeUrl(value: string, allowImageData = false): boolean {
  const url = value.replace(IGNORED_IN_URL, '');
  const scheme = SCHEME.exec(url)?.[1]?.toLowerCase();
  if (scheme === undefined) return true;
  if (SAFE_SCHEMES.has(`${scheme}:`)) return true;
  return allowImageData && SAFE_IMAGE_DATA.test(url);
}

/** Attributes that hold a URL the browser may load or navigate to. */
const URL_ATTRIBUTES = [
  'href',
  'src',
  'action',
  'formaction',
  'xlink:href',
  'cite',
  'poster',
  'background',
  'data',
];

/** Bootstrap's classes for the elements the spec names (§9). */
const BOOTSTRAP_CLASSES: Record<string, string> = {
  TABLE: 'table',
  BLOCKQUOTE: 'blockquote',
  IMG: 'img-fluid',
};

const CONFIG: Config = {
  // HTML only: SVG and MathML are where most parser-differential tricks live.
  USE_PROFILES: { html: true },
  // Forms and styles could dress the guide up as the app itself (a fake login, an overlay).
  // <input> stays, for task lists' checkboxes: without a form or a script it sends nothing.
  FORBID_TAGS: ['style', 'form', 'button', 'textarea', 'select', 'option', 'dialog'],
  FORBID_ATTR: ['style', 'srcset', 'action', 'formaction', 'ping'],
  ADD_ATTR: ['target'],
  ALLOWED_URI_REGEXP: /^(?:(?:https?|mailto):|[^a-z]|[a-z+.-]+(?:[^a-z+.\-:]|$))/i,
};

/**
 * What the hook reads of an element. Typed here rather than as the DOM's `Element`, because the
 * server's typecheck includes src/domain without the DOM library.
 */
interface SanitizedElement {
  tagName: string;
  classList: { add(token: string): void };
  getAttribute(name: string): string | null;
  hasAttribute(name: string): boolean;
  setAttribute(name: string, value: string): void;
  removeAttribute(name: string): void;
}

/** Our rules on top of DOMPurify's: URL schemes again (defence in depth), classes, safe links. */
function afterSanitizeAttributes(node: SanitizedElement): void {
  for (const name of URL_ATTRIBUTES) {
    const value = node.getAttribute(name);
    if (value !== null && !isSafeUrl(value, node.tagName === 'IMG' && name === 'src')) {
      node.removeAttribute(name);
    }
  }
  const bootstrap = BOOTSTRAP_CLASSES[node.tagName];
  if (bootstrap) node.classList.add(bootstrap);
  if (node.tagName === 'A') {
    const href = node.getAttribute('href') ?? '';
    // A link out of the app opens beside the running lab, without handing it `window.opener`.
    if (node.hasAttribute('target') || /^https?:/i.test(href.replace(IGNORED_IN_URL, ''))) {
      node.setAttribute('target', '_blank');
      node.setAttribute('rel', 'noopener noreferrer');
    }
  } else {
    node.removeAttribute('target');
  }
}

let purifier: DOMPurify | null = null;

function getPurifier(): DOMPurify {
  if (purifier) return purifier;
  // Without a DOM DOMPurify returns its input unchanged: refuse rather than pass HTML on.
  const { window } = globalThis as { window?: WindowLike };
  if (window === undefined) throw new Error('renderMarkdown needs a DOM');
  const instance = createDOMPurify(window);
  if (!instance.isSupported) throw new Error('renderMarkdown needs a DOM');
  instance.addHook('afterSanitizeAttributes', (node) => afterSanitizeAttributes(node));
  purifier = instance;
  return instance;
}

/** Markdown (GitHub flavour) to HTML that is safe to insert into the page. */
export function renderMarkdown(text: string): string {
  const html = markdown.parse(text, { async: false });
  return getPurifier().sanitize(html, { ...CONFIG, RETURN_TRUSTED_TYPE: false });
}
