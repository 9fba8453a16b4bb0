import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEED_PASSWORD, startTestServer, type TestServer } from '../harness';
import { signIn } from '../oidc';
import { SignInBrowser } from './browser';

// Security headers on the SPA, the API and the identity provider; the console cookie needs the
// SPA's own header for a state change; form and text bodies are refused where JSON is expected.

/** The directives of a Content-Security-Policy header, by name. */
function directives(header: string | null): Record<string, string[]> {
  const parsed: Record<string, string[]> = {};
  for (const part of (header ?? '').split(';')) {
    const [name, ...values] = part.trim().split(/\s+/);
    if (name) parsed[name] = values;
  }
  return parsed;
}

describe('security headers', () => {
  let server: TestServer;
  let spaDir: string;
  beforeAll(async () => {
    spaDir = mkdtempSync(join(tmpdir(), 'topoplay-spa-'));
    writeFileSync(join(spaDir, 'index.html'), '<!doctype html><title>SPA</title>');
    server = await startTestServer({ env: { TOPOPLAY_SPA: spaDir } });
  });
  afterAll(async () => {
    await server?.close();
    rmSync(spaDir, { recursive: true, force: true });
  });

  it('sends a policy without inline script, framing, sniffing or referrers on the SPA and the API', async () => {
    for (const path of ['/', '/mojo/abc/Lab', '/api/health/version', '/identity/jwks']) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status, path).toBe(200);
      const csp = directives(res.headers.get('content-security-policy'));
      expect(csp['script-src'], path).toEqual(["'self'"]);
      expect(csp['script-src-attr'], path).toEqual(["'none'"]);
      expect(csp['object-src'], path).toEqual(["'none'"]);
      expect(csp['frame-ancestors'], path).toEqual(["'none'"]);
      expect(csp['connect-src'], path).toContain("'self'");
      expect(res.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(res.headers.get('referrer-policy'), path).toBe('no-referrer');
    }
  });

  it('lets the SPA frame its own silent sign-in callback, and nothing else', async () => {
    const res = await fetch(`${server.url}/oidc-silent?code=x`);
    expect(directives(res.headers.get('content-security-policy'))['frame-ancestors']).toEqual([
      "'self'",
    ]);
  });

  it('keeps the login page’s own policy, and hashes the inline script of a form_post answer', async () => {
    const browser = new SignInBrowser(server.url);
    const form = await browser.openLoginForm({ response_mode: 'form_post' });
    const page = await browser.fetch(form.replace(/\/login$/, ''));
    expect(directives(page.headers.get('content-security-policy'))['default-src']).toEqual([
      "'none'",
    ]);

    let answer = await browser.submit(form, 'player', SEED_PASSWORD);
    while (answer.location) answer = await browser.fetch(answer.location);
    const script = /<script[^>]*>([\s\S]*?)<\/script>/.exec(answer.text)?.[1] ?? '';
    expect(script).not.toBe('');
    const hash = `'sha256-${createHash('sha256').update(script).digest('base64')}'`;
    const csp = directives(answer.headers.get('content-security-policy'));
    expect(csp['script-src']).toEqual(["'self'", hash]);
  });
});

describe('connect-src with other hosts', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      env: {
        OIDC_AUTHORITY: 'https://id.example.com/realms/labs',
        APP_HOST: 'https://api.example.com/topomojo',
        MKS_HOST: 'mks.example.com',
      },
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('allows the external authority, the API host and the console host', async () => {
    const res = await fetch(`${server.url}/assets/settings.json`);
    const csp = directives(res.headers.get('content-security-policy'));
    expect(csp['connect-src']).toEqual([
      "'self'",
      'https://id.example.com',
      'wss://id.example.com',
      'https://api.example.com',
      'wss://api.example.com',
      'mks.example.com',
    ]);
    expect(csp['frame-src']).toEqual(["'self'", 'https://id.example.com']);
  });
});

describe('requests a page on another site could send', () => {
  let server: TestServer;
  let player: string;
  let admin: string;
  beforeAll(async () => {
    server = await startTestServer();
    player = (await signIn(server.url, 'player', SEED_PASSWORD)).accessToken;
    admin = (await signIn(server.url, 'admin', SEED_PASSWORD)).accessToken;
  });
  afterAll(async () => {
    await server?.close();
  });

  const api = (path: string, init: RequestInit = {}) => fetch(`${server.url}/api${path}`, init);

  async function consoleCookie(): Promise<string> {
    const res = await api('/user/login', {
      method: 'POST',
      headers: { authorization: `Bearer ${player}` },
    });
    expect(res.status).toBe(200);
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('topomojo.mks='));
    return (cookie ?? '').split(';')[0] ?? '';
  }

  it('refuses a change authenticated by the console cookie alone without the SPA’s header', async () => {
    const cookie = await consoleCookie();
    const forged = await api('/user/logout', { method: 'POST', headers: { cookie } });
    expect(forged.status).toBe(403);
    expect(await forged.text()).toBe('');
    expect(forged.headers.getSetCookie()).toEqual([]);
    // Reads need no header.
    expect((await api('/user/ping', { headers: { cookie } })).status).toBe(200);

    const own = await api('/user/logout', {
      method: 'POST',
      headers: { cookie, 'x-requested-with': 'XMLHttpRequest' },
    });
    expect(own.status).toBe(200);
    expect(own.headers.getSetCookie().join()).toMatch(/topomojo\.mks=;/);
  });

  it('takes changes authenticated by a bearer token or an API key without the header', async () => {
    const apiKey = await server.apiKeyFor('player');
    const credentials: Array<Record<string, string>> = [
      { authorization: `Bearer ${player}` },
      { 'x-api-key': apiKey },
    ];
    for (const headers of credentials) {
      expect((await api('/user/register', { method: 'POST', headers })).status).toBe(200);
    }
  });

  it('refuses text and form bodies to a route that takes JSON with 415', async () => {
    const json = JSON.stringify({ name: 'Forged' });
    const multipart = new FormData();
    multipart.append('name', 'Forged');
    for (const body of [
      { type: 'text/plain', data: json },
      { type: 'text/plain;charset=UTF-8', data: json },
      { type: 'application/x-www-form-urlencoded', data: 'name=Forged' },
    ]) {
      const res = await api('/workspace', {
        method: 'POST',
        headers: { authorization: `Bearer ${admin}`, 'content-type': body.type },
        body: body.data,
      });
      expect(res.status, body.type).toBe(415);
      expect(await res.json()).toEqual({ message: 'UnsupportedMediaType' });
    }
    const res = await api('/workspace', {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}` },
      body: multipart,
    });
    expect(res.status).toBe(415);
    const created = await api('/workspace', {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      body: json,
    });
    expect(created.status).toBe(200);
  });

  it('keeps taking text where a route takes text, and what TopoMojo clients send', async () => {
    const announced = await api('/admin/announce', {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'text/plain' },
      body: 'Maintenance at noon',
    });
    expect(announced.status).toBe(200);

    const workspace = (await (
      await api('/workspace', {
        method: 'POST',
        headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Guide' }),
      })
    ).json()) as { id: string };
    const saved = await api(`/document/${workspace.id}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'text/plain' },
      body: '# Guide',
    });
    expect(saved.status).toBe(200);

    // Moodle's patch type, and Gameboard's JSON with a charset and no body: never taken for a form
    // (how an empty JSON body is answered is the JSON parser's business).
    const patched = await api('/gamespace', {
      method: 'PUT',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json-patch+json' },
      body: JSON.stringify({ id: 'nope', expirationTime: null }),
    });
    expect(patched.status).not.toBe(415);
    const empty = await api('/user/register', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${player}`,
        'content-type': 'application/json; charset=utf-8',
      },
    });
    expect(empty.status).not.toBe(415);
  });
});
