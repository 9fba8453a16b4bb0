import { createHash, randomBytes } from 'node:crypto';

// A browser's side of the embedded provider's sign-in, one step at a time, from a client address
// of the test's choosing (X-Forwarded-For, read when the server runs with TRUST_PROXY).

export const CLIENT_ID = 'topoplay-ui';

/** The query of an authorization request as the SPA sends it (code flow with PKCE). */
export function authorizeQuery(baseUrl: string, extra: Record<string, string> = {}): string {
  const verifier = randomBytes(32).toString('base64url');
  return new URLSearchParams({
    client_id: CLIENT_ID,
    redirect_uri: `${baseUrl}/oidc`,
    response_type: 'code',
    scope: 'openid profile',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    state: randomBytes(8).toString('hex'),
    ...extra,
  }).toString();
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  location: string | null;
}

export class SignInBrowser {
  private cookies = new Map<string, string>();

  constructor(
    private readonly baseUrl: string,
    /** The client address the server sees. */
    private readonly address?: string,
  ) {}

  async fetch(path: string, init: RequestInit = {}): Promise<Answer> {
    const res = await fetch(new URL(path, this.baseUrl), {
      ...init,
      redirect: 'manual',
      headers: {
        ...(init.headers as Record<string, string> | undefined),
        cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
        ...(this.address ? { 'x-forwarded-for': this.address } : {}),
      },
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq > 0) this.cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
    return {
      status: res.status,
      headers: res.headers,
      text: await res.text(),
      location: res.headers.get('location'),
    };
  }

  /** Starts a sign-in and follows it to the login form; returns the form's action. */
  async openLoginForm(extra: Record<string, string> = {}): Promise<string> {
    let answer = await this.fetch(`/identity/auth?${authorizeQuery(this.baseUrl, extra)}`);
    for (let hop = 0; answer.location && hop < 5; hop++) answer = await this.fetch(answer.location);
    const action = /<form[^>]*action="([^"]+)"/i.exec(answer.text)?.[1];
    if (!action) throw new Error(`no login form (status ${answer.status})`);
    return action.replace(/&amp;/g, '&');
  }

  /** Submits the login form once. */
  submit(action: string, username: string, password: string): Promise<Answer> {
    return this.fetch(action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ username, password }).toString(),
    });
  }
}

export const INVALID = 'Invalid username or password.';
export const TOO_MANY = 'Too many failed sign-ins.';
