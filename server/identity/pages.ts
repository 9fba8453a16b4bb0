import { createHash } from 'node:crypto';

// The few HTML pages of the embedded provider. Every interpolated value goes through
// escapeHtml; pages carry no third-party resources, so the content security policy can forbid
// everything but the inline style (and, on the sign-out page, one hashed inline script).

const INVALID_CREDENTIALS = 'Invalid username or password.';

export function escapeHtml(value: string): string {
  return value.replace(
    /[&<>"'`]/g,
    (c) =>
      ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' })[c]!,
  );
}

const STYLE = `
:root{color-scheme:light dark;font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif}
body{margin:0;min-height:100vh;display:grid;place-items:center;background:#f3f4f6;color:#111827}
main{width:min(22rem,calc(100vw - 2rem));padding:2rem;border-radius:.75rem;background:#fff;
box-shadow:0 1px 3px rgba(0,0,0,.12),0 8px 24px rgba(0,0,0,.06)}
.app{margin:0 0 .25rem;font-size:.875rem;font-weight:600;letter-spacing:.04em;text-transform:uppercase;color:#4b5563}
h1{margin:0 0 1.25rem;font-size:1.5rem}
label{display:block;margin:1rem 0 .375rem;font-weight:600;font-size:.9rem}
input{box-sizing:border-box;width:100%;padding:.625rem .75rem;border:1px solid #9ca3af;border-radius:.375rem;font:inherit;background:inherit;color:inherit}
input:focus-visible,button:focus-visible,a:focus-visible{outline:3px solid #2563eb;outline-offset:2px}
button{width:100%;margin-top:1.5rem;padding:.7rem;border:0;border-radius:.375rem;background:#1d4ed8;color:#fff;font:inherit;font-weight:600;cursor:pointer}
button:hover{background:#1e40af}
.error{margin:0 0 .5rem;padding:.625rem .75rem;border-radius:.375rem;background:#fef2f2;color:#991b1b;border:1px solid #fecaca}
.secondary{display:block;margin-top:1rem;text-align:center;color:#374151}
p{line-height:1.5}
@media (prefers-color-scheme:dark){body{background:#111827;color:#f9fafb}main{background:#1f2937}
.app,.secondary{color:#d1d5db}.error{background:#450a0a;color:#fecaca;border-color:#7f1d1d}}
`;

function csp(scriptHash?: string): string {
  return [
    "default-src 'none'",
    "style-src 'unsafe-inline'",
    scriptHash ? `script-src 'sha256-${scriptHash}'` : undefined,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ]
    .filter(Boolean)
    .join('; ');
}

export interface Page {
  status: number;
  headers: Record<string, string>;
  body: string;
}

function page(
  status: number,
  title: string,
  content: string,
  options: { scriptHash?: string } = {},
): Page {
  return {
    status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy': csp(options.scriptHash),
      'x-frame-options': 'DENY',
      'referrer-policy': 'no-referrer',
      'x-content-type-options': 'nosniff',
    },
    body: `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${content}
</main>
</body>
</html>
`,
  };
}

/** "45 seconds", "1 minute", "15 minutes": how long to wait, rounded up. */
function waitText(seconds: number): string {
  if (seconds < 60) return seconds === 1 ? '1 second' : `${seconds} seconds`;
  const minutes = Math.ceil(seconds / 60);
  return minutes === 1 ? '1 minute' : `${minutes} minutes`;
}

export function loginPage(input: {
  appName: string;
  action: string;
  abortUrl: string;
  username?: string;
  failed?: boolean;
  /** Too many failed sign-ins: the form is shown again (429) with how long to wait. */
  retryAfterSeconds?: number;
}): Page {
  const username = input.username ?? '';
  const wait = input.retryAfterSeconds;
  const alert = wait
    ? `Too many failed sign-ins. Try again in ${waitText(wait)}.`
    : input.failed
      ? INVALID_CREDENTIALS
      : '';
  const shown = page(
    wait ? 429 : 200,
    `Sign in · ${input.appName}`,
    `<p class="app">${escapeHtml(input.appName)}</p>
<h1>Sign in</h1>
${alert ? `<p class="error" role="alert">${escapeHtml(alert)}</p>` : ''}
<form method="post" action="${escapeHtml(input.action)}">
<label for="username">Username</label>
<input id="username" name="username" type="text" autocomplete="username" autocapitalize="none" spellcheck="false" required value="${escapeHtml(username)}"${username ? '' : ' autofocus'}>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required${username ? ' autofocus' : ''}>
<button type="submit">Sign in</button>
</form>
<a class="secondary" href="${escapeHtml(input.abortUrl)}">Cancel and return to the application</a>`,
  );
  if (wait) shown.headers['retry-after'] = String(wait);
  return shown;
}

export function errorPage(input: { appName: string; status: number; message: string }): Page {
  return page(
    input.status,
    `Sign-in problem · ${input.appName}`,
    `<p class="app">${escapeHtml(input.appName)}</p>
<h1>Something went wrong</h1>
<p>${escapeHtml(input.message)}</p>
<p>Return to the application and try again.</p>`,
  );
}

// Submits oidc-provider's logout form at once, so the application's sign-out does not stop on
// a confirmation page; without JavaScript the button does the same.
const LOGOUT_SCRIPT = "document.getElementById('op.logoutForm').submit();";
const LOGOUT_SCRIPT_HASH = createHash('sha256').update(LOGOUT_SCRIPT).digest('base64');

/** `form` is the form oidc-provider builds (id op.logoutForm, with its xsrf input). */
export function logoutPage(input: { appName: string; form: string }): Page {
  return page(
    200,
    `Signing out · ${input.appName}`,
    `<p class="app">${escapeHtml(input.appName)}</p>
<h1>Signing out…</h1>
${input.form}
<input type="hidden" name="logout" value="yes" form="op.logoutForm">
<noscript><button type="submit" form="op.logoutForm">Sign out</button></noscript>
<script>${LOGOUT_SCRIPT}</script>`,
    { scriptHash: LOGOUT_SCRIPT_HASH },
  );
}

export function signedOutPage(input: { appName: string }): Page {
  return page(
    200,
    `Signed out · ${input.appName}`,
    `<p class="app">${escapeHtml(input.appName)}</p>
<h1>Signed out</h1>
<p>You have signed out. You can close this window.</p>`,
  );
}
