// Cross-site scripting vectors for every place user text is rendered (xss.spec.ts). Each vector
// that runs calls a marker, `__xss.push(id)` (or `alert(id)`, caught as a dialog), so that a
// vector that executes is known by its id. They cover the HTML parser's raw-text and foreign
// contexts, auto-firing event handlers, URL schemes in every disguise, markdown's own syntax,
// attribute break-outs and the mutation tricks that have bypassed sanitizers (DOMPurify's
// advisories among them). The unit test of the renderer (src/domain/markdown.test.ts) checks its
// output for the same families without a browser.

export interface XssVector {
  id: number;
  text: string;
  /** Nothing after it in the same document is read as markup the way it was written. */
  openEnded: boolean;
}

/** The page-side marker every vector calls; the spec installs it before any page script. */
export const MARKER = '__xss';

/** `{js}` becomes the marker call, `{id}` the vector's id. */
const TEMPLATES: string[] = [
  // Script elements, plain and disguised.
  '<script>{js}</script>',
  '<ScRiPt>{js}</sCrIpT>',
  '<script >{js}</script >',
  '<script/x>{js}</script>',
  '<script\n>{js}</script>',
  '<script src="data:text/javascript,{js}"></script>',
  '<script>/*</script><script>*/{js}</script>',
  '<<script>{js}//<</script>',
  '"><script>{js}</script>',
  "'><script>{js}</script>",
  '</textarea><script>{js}</script>',
  '</title><script>{js}</script>',
  '</style><script>{js}</script>',
  '</noscript><script>{js}</script>',
  '<!--><script>{js}</script>-->',
  '<![CDATA[<script>{js}</script>]]>',
  'text\n\n<script>\n{js}\n</script>\n',
  // Handlers that fire by themselves.
  '<img src=x onerror={js}>',
  '<img src=x onerror="{js}">',
  '<img/src/onerror={js}>',
  '<IMG SRC=x OnErRoR={js}>',
  '<img src=x onerror\n={js}>',
  '<img src="x` `<script>{js}</script>"` `>',
  '<img src=x:alert(alt) onerror=eval(src) alt={id}>',
  '<image src=x onerror={js}>',
  '<svg onload={js}>',
  '<svg/onload={js}>',
  '<svg><script>{js}</script></svg>',
  '<svg><animate onbegin={js} attributeName=x dur=1s>',
  '<svg><set onbegin={js} attributeName=x to=1>',
  '<svg><image href=x onerror={js}></svg>',
  '<svg><foreignObject><img src=x onerror={js}></foreignObject></svg>',
  '<body onload={js}>',
  '<body onpageshow={js}>',
  '<frameset onload={js}>',
  '<details open ontoggle={js}>',
  '<video src=x onerror={js}></video>',
  '<video><source onerror={js}></video>',
  '<audio src=x onerror={js}></audio>',
  '<input autofocus onfocus={js}>',
  '<select autofocus onfocus={js}></select>',
  '<textarea autofocus onfocus={js}></textarea>',
  '<a autofocus href=# onfocus={js}>x</a>',
  '<div tabindex=1 autofocus onfocus={js}>x</div>',
  '<marquee onstart={js}>x</marquee>',
  '<style>@keyframes k{}</style><div style="animation-name:k" onanimationstart={js}>x</div>',
  '<object data=x onerror={js}></object>',
  '<link rel=stylesheet href=x onerror={js}>',
  '<iframe onload={js}></iframe>',
  '<iframe src=x onload={js}></iframe>',
  '<embed src=x onload={js}>',
  '<isindex type=image src=x onerror={js}>',
  '<table background=x onerror={js}>',
  '<math><maction actiontype=statusline onfocus={js}>',
  // Script URLs where something loads or navigates.
  '<iframe src="javascript:{js}"></iframe>',
  '<iframe srcdoc="<script>parent.{js}</script>"></iframe>',
  '<iframe src="data:text/html,<script>parent.{js}</script>"></iframe>',
  '<object data="javascript:{js}"></object>',
  '<embed src="javascript:{js}">',
  '<form action="javascript:{js}"><input type=submit></form>',
  '<button formaction="javascript:{js}">x</button>',
  '<input type="image" formaction="javascript:{js}" src="x">',
  '<meta http-equiv="refresh" content="0;url=javascript:{js}">',
  '<base href="javascript:{js}//">',
  '<a href="javascript:{js}">x</a>',
  '<a href="JaVaScRiPt:{js}">x</a>',
  '<a href=" javascript:{js}">x</a>',
  '<a href="\u0001javascript:{js}">x</a>',
  '<a href="java\nscript:{js}">x</a>',
  '<a href="java&#9;script:{js}">x</a>',
  '<a href="&#106;avascript:{js}">x</a>',
  '<a href="&#x6A;&#x61;&#x76;&#x61;&#x73;&#x63;&#x72;&#x69;&#x70;&#x74;&#x3A;{js}">x</a>',
  '<a href="javascript&colon;{js}">x</a>',
  '<a href="vbscript:msgbox({id})">x</a>',
  '<a href="data:text/html,<script>{js}</script>">x</a>',
  '<a href="javascript:{js}" target="_blank">x</a>',
  '<a href="#" onclick="{js}">x</a>',
  '<svg><a xlink:href="javascript:{js}"><text>x</text></a></svg>',
  '<math href="javascript:{js}">x</math>',
  '<img src="data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+">',
  '<div style="background:url(javascript:{js})">x</div>',
  '<div style="width:expression({js})">x</div>',
  '<style>body{background:url("javascript:{js}")}</style>',
  // Markdown's own syntax.
  '[click](javascript:{js})',
  '[click](<javascript:{js}>)',
  '<javascript:{js}>',
  '[click][ref{id}]\n\n[ref{id}]: javascript:{js}',
  '[click](javascript&#58;{js})',
  '[click](&#x6A;avascript:{js})',
  '[click](java&#9;script:{js})',
  '[click](java%0ascript:{js})',
  '[click](JAVASCRIPT:{js})',
  '![x](javascript:{js})',
  '![x](x" onerror="{js})',
  '![x](/a.png "a\\" onerror=\\"{js})',
  '[x](x" onclick="{js})',
  '[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
  '# <img src=x onerror={js}>',
  '> <img src=x onerror={js}>',
  '- <img src=x onerror={js}>',
  '| a | <img src=x onerror={js}> |\n|---|---|\n| <svg onload={js}> | b |',
  '**<img src=x onerror={js}>**',
  '[<img src=x onerror={js}>](https://example.test)',
  '`<img src=x onerror={js}>`',
  '```html\n<script>{js}</script>\n```',
  '<details><summary>x</summary>\n\n<img src=x onerror={js}>\n\n</details>',
  // Attribute break-outs, for text that lands in an attribute.
  '" onmouseover="{js}" x="',
  "' autofocus onfocus='{js}' x='",
  '" autofocus onfocus="{js}" x="',
  '"><img src=x onerror={js}>',
  "'><img src=x onerror={js}>",
  '`><img src=x onerror={js}>',
  '"/><svg onload={js}>',
  'javascript:{js}',
  // Mutation and parser-differential tricks.
  '<noscript><p title="</noscript><img src=x onerror={js}>">',
  '<svg></p><style><a id="</style><img src=1 onerror={js}>">',
  '<svg><style><img src=x onerror={js}></style></svg>',
  '<math><style><img src=x onerror={js}></style></math>',
  '<svg><p><style><img src=x onerror={js}></style></p></svg>',
  '<template><script>{js}</script></template>',
  '<template><img src=x onerror={js}></template>',
  '<xmp><img src=x onerror={js}></xmp>',
  '<noembed><img src=x onerror={js}></noembed>',
  '<noframes><img src=x onerror={js}></noframes>',
  '<iframe><img src=x onerror={js}></iframe>',
  '<title><img src=x onerror={js}></title>',
  '<textarea><img src=x onerror={js}></textarea>',
  '<!--<img src="--><img src=x onerror={js}//">',
  '<a title="<!--"><img src=x onerror={js}>-->',
  '<div id="x"></div><img src=x name=getElementById onerror={js}>',
  '<form id=x><input name=attributes></form><img src=x onerror={js}>',
  // Template and expression syntaxes of other frameworks, inert here.
  "{{constructor.constructor('{js}')()}}",
  '${{js}}',
  '#{{js}}',
  '<%= {js} %>',
];

/**
 * Vectors after which the rest of a document is no longer read as it was written: the math ones
 * keep what follows inside a MathML element that the sanitizer drops whole, and nothing closes a
 * plaintext element. They go last in a document.
 */
const OPEN_ENDED: string[] = [
  '<math><mtext><table><mglyph><style><img src=x onerror={js}>',
  '<form><math><mtext></form><form><mglyph><style></math><img src onerror={js}>',
  '<plaintext><img src=x onerror={js}>',
];

/**
 * Every vector once with the marker call, and once with alert() for the dialog hook, in the
 * templates' order (the one that swallows the rest of a document stays last).
 */
export function xssVectors(): XssVector[] {
  const calls = [(id: number) => `${MARKER}.push(${id})`, (id: number) => `alert(${id})`];
  const vectors: XssVector[] = [];
  const templates = [
    ...TEMPLATES.map((template) => ({ template, openEnded: false })),
    ...OPEN_ENDED.map((template) => ({ template, openEnded: true })),
  ];
  for (const { template, openEnded } of templates) {
    // A template that calls nothing (its payload is inert data) is listed once.
    for (const call of template.includes('{js}') ? calls : calls.slice(0, 1)) {
      const id = vectors.length + 1;
      vectors.push({
        id,
        text: template.replaceAll('{js}', call(id)).replaceAll('{id}', String(id)),
        openEnded,
      });
    }
  }
  return vectors;
}

/** The vectors that fit a field of `max` characters. */
export function vectorsWithin(max: number): XssVector[] {
  return xssVectors().filter((v) => v.text.length <= max);
}

/**
 * Ends whatever a vector left open, so that the next one is read as markdown and HTML afresh: a
 * markdown HTML block that started with `<script`, `<style`, `<textarea` or `<pre` runs until a
 * line holding one of their end tags (`<script >x</script >` never ends it), and the HTML parser's
 * raw-text elements run until their own end tag.
 */
const SEPARATOR =
  '</script></style></textarea></pre></title></xmp></noscript></noembed></noframes></iframe>';

/**
 * The vectors as one markdown document, each its own block, after a heading to wait for; the
 * open-ended ones last. Only the last of those is read as written, so a document that must be
 * read whole leaves them out (and the others each get a document of their own somewhere).
 */
export function corpusDocument(heading: string, vectors: XssVector[]): string {
  const ordered = [...vectors.filter((v) => !v.openEnded), ...vectors.filter((v) => v.openEnded)];
  return [`# ${heading}`, ...ordered.map((v) => v.text)].join(`\n\n${SEPARATOR}\n\n`);
}
