import { createHash, randomBytes } from 'node:crypto';

// Signs in through the embedded identity provider the way a browser does: authorization code
// with PKCE, following redirects by hand with a cookie jar and submitting the login form.

const b64url = (buf: Buffer) => buf.toString('base64url');

class CookieJar {
  private cookies = new Map<string, string>();
  store(res: Response) {
    for (const line of res.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq > 0) this.cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
  }
  header() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

export interface SignInResult {
  accessToken: string;
  idToken: string;
  /** The login page's HTML when the credentials were refused. */
  refusedPage?: string;
}

export async function signIn(
  baseUrl: string,
  username: string,
  password: string,
  options: { clientId?: string } = {},
): Promise<SignInResult> {
  const clientId = options.clientId ?? 'topoplay-ui';
  const redirectUri = `${baseUrl}/oidc`;
  const verifier = b64url(randomBytes(32));
  const challenge = b64url(createHash('sha256').update(verifier).digest());
  const jar = new CookieJar();
  const authorize = new URL(`${baseUrl}/identity/auth`);
  authorize.search = new URLSearchParams({
    client_id: clientId,
    redirect_uri: redirectUri,
    response_type: 'code',
    scope: 'openid profile',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'test-state',
  }).toString();

  let next: { url: string; init?: RequestInit } | null = { url: authorize.toString() };
  let code: string | null = null;
  let submitted = false;
  for (let hop = 0; next && hop < 20; hop++) {
    const res: Response = await fetch(next.url, {
      ...next.init,
      redirect: 'manual',
      headers: { ...(next.init?.headers ?? {}), cookie: jar.header() },
    });
    jar.store(res);
    const location = res.headers.get('location');
    if (location) {
      const target: URL = new URL(location, next.url);
      if (target.toString().startsWith(redirectUri)) {
        code = target.searchParams.get('code');
        if (!code) throw new Error(`sign-in failed: ${target.search}`);
        break;
      }
      next = { url: target.toString() };
      continue;
    }
    const html = await res.text();
    if (submitted) return { accessToken: '', idToken: '', refusedPage: html };
    const action = /<form[^>]*action="([^"]+)"/i.exec(html)?.[1];
    if (!action) throw new Error(`no login form (status ${res.status}): ${html.slice(0, 300)}`);
    submitted = true;
    next = {
      url: new URL(action.replace(/&amp;/g, '&'), next.url).toString(),
      init: {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ username, password }).toString(),
      },
    };
  }
  if (!code) throw new Error('sign-in did not reach the redirect URI');

  const token = await fetch(`${baseUrl}/identity/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      client_id: clientId,
      code_verifier: verifier,
    }).toString(),
  });
  const body = (await token.json()) as { access_token?: string; id_token?: string; error?: string };
  if (!token.ok || !body.access_token)
    throw new Error(`token exchange failed: ${JSON.stringify(body)}`);
  return { accessToken: body.access_token, idToken: body.id_token ?? '' };
}
