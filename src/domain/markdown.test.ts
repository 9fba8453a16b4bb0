// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { isSafeUrl, renderMarkdown } from './markdown';

/**
 * The few DOM members these checks read. The server's typecheck includes src/domain without the
 * DOM library, so jsdom's document is reached through this shape.
 */
interface Parsed {
  tagName: string;
  innerHTML: string;
  textContent: string | null;
  classList: { contains(token: string): boolean };
  getAttribute(name: string): string | null;
  hasAttribute(name: string): boolean;
  getAttributeNames(): string[];
  querySelector(selectors: string): Parsed | null;
  querySelectorAll(selectors: string): Iterable<Parsed>;
  /** A <template>'s own fragment, which querySelectorAll does not enter. */
  content?: Parsed;
}

const { document } = globalThis as unknown as {
  document: { createElement(tag: string): Parsed };
};

/** Elements that run code, load documents or change how the page is read. */
const DANGEROUS_TAGS = new Set([
  'SCRIPT',
  'IFRAME',
  'FRAME',
  'FRAMESET',
  'OBJECT',
  'EMBED',
  'APPLET',
  'FORM',
  'META',
  'BASE',
  'LINK',
  'STYLE',
  'SVG',
  'MATH',
  'NOSCRIPT',
]);

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

/**
 * An independent judge of a URL: the browser's own parser (WHATWG URL, which drops the tabs,
 * newlines and controls a scheme may hide behind) resolves it against the app, and only web and
 * mail schemes pass; raster data only in an image's src.
 */
function isInertUrl(value: string, imageSource: boolean): boolean {
  let protocol: string;
  try {
    protocol = new URL(value, 'https://app.test/topo/').protocol;
  } catch {
    return true; // the browser cannot follow it either
  }
  if (['http:', 'https:', 'mailto:'].includes(protocol)) return true;
  return imageSource && /^\s*data:image\/(png|jpeg|gif|webp);/i.test(value);
}

/** Everything in rendered HTML that could run script, parsed the way the browser parses it. */
function executableParts(html: string): string[] {
  const host = document.createElement('template');
  host.innerHTML = html;
  const found: string[] = [];
  const visit = (root: Parsed) => {
    for (const element of root.querySelectorAll('*')) {
      const tag = element.tagName.toUpperCase();
      if (DANGEROUS_TAGS.has(tag)) found.push(`<${tag.toLowerCase()}>`);
      for (const attribute of element.getAttributeNames()) {
        const name = attribute.toLowerCase();
        if (name.startsWith('on')) found.push(`${tag} ${name}`);
        if (name === 'srcdoc' || name === 'style') found.push(`${tag} ${name}`);
      }
      for (const name of URL_ATTRIBUTES) {
        const value = element.getAttribute(name);
        if (value !== null && !isInertUrl(value, tag === 'IMG' && name === 'src')) {
          found.push(`${tag} ${name}=${value}`);
        }
      }
      if (tag === 'TEMPLATE' && element.content) visit(element.content);
    }
  };
  if (host.content) visit(host.content);
  return found;
}

const XSS_VECTORS: Array<[string, string]> = [
  ['a script tag', '<script>alert(1)</script>'],
  ['a script tag split over markdown', 'text\n\n<script>\nalert(1)\n</script>\n'],
  ['img onerror', '<img src=x onerror=alert(1)>'],
  ['img onerror evaluating its own src', '<img src=x:alert(alt) onerror=eval(src) alt=0>'],
  ['svg onload', '<svg onload=alert(1)>'],
  ['script inside svg', '<svg><script>alert(1)</script></svg>'],
  ['svg animate onbegin', '<svg><animate onbegin=alert(1) attributeName=x dur=1s>'],
  ['svg xlink:href', '<svg><a xlink:href="javascript:alert(1)"><text>x</text></a></svg>'],
  ['iframe with a javascript src', '<iframe src="javascript:alert(1)"></iframe>'],
  ['iframe srcdoc', '<iframe srcdoc="<script>alert(1)</script>"></iframe>'],
  ['object data', '<object data="javascript:alert(1)"></object>'],
  ['embed src', '<embed src="javascript:alert(1)">'],
  ['markdown javascript: link', '[click](javascript:alert(1))'],
  ['markdown link in angle brackets', '[click](<javascript:alert(1)>)'],
  ['markdown autolink', '<javascript:alert(1)>'],
  ['markdown reference link', '[click][ref]\n\n[ref]: javascript:alert(1)'],
  ['markdown link with an entity in the scheme', '[click](javascript&#58;alert(1))'],
  ['markdown link with an encoded letter', '[click](&#x6A;avascript:alert(1))'],
  ['markdown link with a tab in the scheme', '[click](java&#9;script:alert(1))'],
  ['markdown link with a percent-encoded newline', '[click](java%0ascript:alert(1))'],
  ['markdown image with a javascript: src', '![x](javascript:alert(1))'],
  [
    'markdown data:text/html link',
    '[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
  ],
  ['html javascript: link', '<a href="javascript:alert(1)">x</a>'],
  ['html link in mixed case', '<a href="JaVaScRiPt:alert(1)">x</a>'],
  ['html link with a leading space', '<a href=" javascript:alert(1)">x</a>'],
  ['html link with a control character', '<a href="\u0001javascript:alert(1)">x</a>'],
  ['html link with a newline in the scheme', '<a href="java\nscript:alert(1)">x</a>'],
  ['decimal entity-encoded javascript:', '<a href="&#106;avascript:alert(1)">x</a>'],
  [
    'hex entity-encoded javascript:',
    '<a href="&#x6A;&#x61;&#x76;&#x61;&#x73;&#x63;&#x72;&#x69;&#x70;&#x74;&#x3A;alert(1)">x</a>',
  ],
  ['named entity colon', '<a href="javascript&colon;alert(1)">x</a>'],
  ['tab entity in the scheme', '<a href="jav&#x09;ascript:alert(1)">x</a>'],
  ['vbscript:', '<a href="vbscript:msgbox(1)">x</a>'],
  ['data:text/html link', '<a href="data:text/html,<script>alert(1)</script>">x</a>'],
  ['svg data image', '<img src="data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+">'],
  ['target _blank javascript link', '<a href="javascript:alert(1)" target="_blank">x</a>'],
  ['onclick on a link', '<a href="#" onclick="alert(1)">x</a>'],
  ['style url(javascript:)', '<div style="background:url(javascript:alert(1))">x</div>'],
  ['style expression()', '<div style="width:expression(alert(1))">x</div>'],
  ['a style element', '<style>body{background:url("javascript:alert(1)")}</style>'],
  ['a stylesheet link', '<link rel=stylesheet href="javascript:alert(1)">'],
  ['form action', '<form action="javascript:alert(1)"><input type=submit></form>'],
  ['button formaction', '<button formaction="javascript:alert(1)">x</button>'],
  ['input formaction', '<input type="image" formaction="javascript:alert(1)" src="x">'],
  ['isindex action', '<isindex action=javascript:alert(1) type=image>'],
  ['meta refresh', '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">'],
  ['base href', '<base href="javascript:alert(1)//">'],
  ['mathml href', '<math href="javascript:alert(1)">x</math>'],
  ['mathml mglyph style', '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>'],
  ['noscript title', '<noscript><p title="</noscript><img src=x onerror=alert(1)>">'],
  ['details ontoggle', '<details open ontoggle=alert(1)>'],
  ['body onload', '<body onload=alert(1)>'],
  ['frameset onload', '<frameset onload=alert(1)>'],
  ['video source onerror', '<video><source onerror=alert(1)></video>'],
  ['script in a template', '<template><script>alert(1)</script></template>'],
  ['markdown image title breaking out', '![x](/a.png "a\\" onerror=\\"alert(1))'],
];

describe('renderMarkdown keeps nothing executable', () => {
  it('is checked against at least 30 vectors', () => {
    expect(XSS_VECTORS.length).toBeGreaterThanOrEqual(30);
  });

  for (const [name, vector] of XSS_VECTORS) {
    it(`neutralises ${name}`, () => {
      expect(executableParts(renderMarkdown(vector))).toEqual([]);
    });
  }

  it('the judge itself catches what the renderer must remove', () => {
    expect(executableParts('<a href="jav&#x09;ascript:alert(1)">x</a>')).toEqual([
      'A href=jav\tascript:alert(1)',
    ]);
    expect(executableParts('<img src=x onerror=alert(1)><script></script>')).toEqual([
      'IMG onerror',
      '<script>',
    ]);
  });
});

describe('renderMarkdown keeps the document', () => {
  const render = (text: string) => {
    const host = document.createElement('div');
    host.innerHTML = renderMarkdown(text);
    return host;
  };

  it('renders a table with the Bootstrap table class', () => {
    const html = render('| a | b |\n|---|---|\n| 1 | 2 |');
    const table = html.querySelector('table');
    expect(table?.classList.contains('table')).toBe(true);
    expect([...html.querySelectorAll('th')].map((th) => th.textContent)).toEqual(['a', 'b']);
    expect([...html.querySelectorAll('td')].map((td) => td.textContent)).toEqual(['1', '2']);
  });

  it('renders a block quote with the Bootstrap blockquote class', () => {
    const quote = render('> Read the brief first.').querySelector('blockquote');
    expect(quote?.classList.contains('blockquote')).toBe(true);
    expect(quote?.textContent?.trim()).toBe('Read the brief first.');
  });

  it('renders an image from the docs folder as a fluid image with its alt text', () => {
    const image = render('![topology](/docs/ws-1/net-ab12.png)').querySelector('img');
    expect(image?.getAttribute('src')).toBe('/docs/ws-1/net-ab12.png');
    expect(image?.getAttribute('alt')).toBe('topology');
    expect(image?.classList.contains('img-fluid')).toBe(true);
  });

  it('keeps an inline raster image but drops other data URLs', () => {
    const png = 'data:image/png;base64,iVBORw0KGgo=';
    expect(render(`![dot](${png})`).querySelector('img')?.getAttribute('src')).toBe(png);
    expect(
      render('[x](data:image/png;base64,iVBORw0KGgo=)').querySelector('a')?.hasAttribute('href'),
    ).toBe(false);
  });

  it('renders headings, lists, emphasis and code', () => {
    const html = render(
      '# Lab\n\n## Steps\n\n1. boot\n2. log in\n\n- *one*\n- **two**\n\nRun `ls -l`.\n\n```sh\necho "<b>"\n```',
    );
    expect(html.querySelector('h1')?.textContent).toBe('Lab');
    expect(html.querySelector('h2')?.textContent).toBe('Steps');
    expect([...html.querySelectorAll('ol li')].map((li) => li.textContent)).toEqual([
      'boot',
      'log in',
    ]);
    expect(html.querySelector('ul li em')?.textContent).toBe('one');
    expect(html.querySelector('ul li strong')?.textContent).toBe('two');
    expect(html.querySelector('p code')?.textContent).toBe('ls -l');
    const block = html.querySelector('pre code');
    expect(block?.textContent).toBe('echo "<b>"\n');
    expect(block?.classList.contains('language-sh')).toBe(true);
  });

  it('opens web links in a new tab without giving it the opener', () => {
    const link = render('[docs](https://example.com/guide)').querySelector('a');
    expect(link?.getAttribute('href')).toBe('https://example.com/guide');
    expect(link?.getAttribute('target')).toBe('_blank');
    expect(link?.getAttribute('rel')).toBe('noopener noreferrer');
  });

  it('adds noopener to any link that asks for another window', () => {
    const link = render('<a href="/docs/ws-1/a.pdf" target="other">pdf</a>').querySelector('a');
    expect(link?.getAttribute('target')).toBe('_blank');
    expect(link?.getAttribute('rel')).toBe('noopener noreferrer');
  });

  it('leaves relative links, fragments and mail links in the page', () => {
    const html = render('[top](#lab) [file](/docs/ws-1/a.pdf) [mail](mailto:a@b.test)');
    const links = [...html.querySelectorAll('a')];
    expect(links.map((a) => a.getAttribute('href'))).toEqual([
      '#lab',
      '/docs/ws-1/a.pdf',
      'mailto:a@b.test',
    ]);
    expect(links.map((a) => a.hasAttribute('target'))).toEqual([false, false, false]);
  });

  it('shows markup written inside code as text', () => {
    const html = render('`<script>alert(1)</script>`');
    expect(html.querySelector('code')?.textContent).toBe('<script>alert(1)</script>');
    expect(html.querySelector('script')).toBeNull();
  });
});

describe('isSafeUrl', () => {
  it('accepts relative, fragment, web and mail URLs', () => {
    for (const url of ['/docs/a.png', 'a.png', '#x', '//cdn.test/a', 'https://x', 'mailto:a@b']) {
      expect(isSafeUrl(url), url).toBe(true);
    }
  });

  it('refuses script and data schemes however they are disguised', () => {
    for (const url of [
      'javascript:x',
      ' JAVASCRIPT:x',
      'java\tscript:x',
      'vbscript:x',
      'data:text/html,x',
    ]) {
      expect(isSafeUrl(url), url).toBe(false);
    }
  });

  it('accepts raster image data only where asked', () => {
    expect(isSafeUrl('data:image/png;base64,AA==', true)).toBe(true);
    expect(isSafeUrl('data:image/png;base64,AA==')).toBe(false);
    expect(isSafeUrl('data:image/svg+xml;base64,AA==', true)).toBe(false);
  });
});
