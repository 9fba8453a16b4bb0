import { describe, expect, it } from 'vitest';
import { defaultSettings, loadSettings, mksHost, resolveSettings, SETTINGS_URL } from './settings';

const ORIGIN = 'http://localhost:5080';

const answer = (status: number, body: string) =>
  (async () => new Response(body, { status })) as unknown as typeof fetch;

describe('settings', () => {
  it('defaults to Topoplay on the same origin with an empty authority', () => {
    const settings = defaultSettings(ORIGIN);
    expect(settings).toMatchObject({ appname: 'Topoplay', apphost: '', mkshost: '' });
    expect(settings.oidc).toMatchObject({
      authority: '',
      response_type: 'code',
      redirect_uri: `${ORIGIN}/oidc`,
      silent_redirect_uri: `${ORIGIN}/oidc-silent`,
      loadUserInfo: true,
    });
  });

  it('merges settings.json over the defaults, the oidc block too, keeping unknown oidc fields', () => {
    const settings = resolveSettings(
      {
        appname: 'Mojo',
        enable_upload: true,
        oidc: {
          authority: 'http://localhost:5080/identity',
          client_id: 'ui',
          extraQueryParams: { resource: 'api' },
        },
      },
      ORIGIN,
    );
    expect(settings.appname).toBe('Mojo');
    expect(settings.enable_upload).toBe(true);
    expect(settings.oidc).toMatchObject({
      authority: 'http://localhost:5080/identity',
      client_id: 'ui',
      response_type: 'code',
      extraQueryParams: { resource: 'api' },
    });
  });

  it('falls back to the defaults when a field has the wrong type', () => {
    expect(resolveSettings({ appname: 7 }, ORIGIN)).toEqual(defaultSettings(ORIGIN));
  });

  it('loads the settings asset', async () => {
    const urls: string[] = [];
    const doFetch = (async (url: string) => {
      urls.push(url);
      return new Response(JSON.stringify({ appname: 'Mojo' }), { status: 200 });
    }) as unknown as typeof fetch;
    expect((await loadSettings(ORIGIN, doFetch)).appname).toBe('Mojo');
    expect(urls).toEqual([SETTINGS_URL]);
  });

  it('uses the defaults when the asset is missing, unreadable or unreachable', async () => {
    const defaults = defaultSettings(ORIGIN);
    expect(await loadSettings(ORIGIN, answer(404, 'Not found'))).toEqual(defaults);
    expect(await loadSettings(ORIGIN, answer(200, '<html>'))).toEqual(defaults);
    const offline = (async () => {
      throw new TypeError('Failed to fetch');
    }) as unknown as typeof fetch;
    expect(await loadSettings(ORIGIN, offline)).toEqual(defaults);
  });

  it("falls back to 'mks' for the console host", () => {
    expect(mksHost(defaultSettings(ORIGIN))).toBe('mks');
    expect(mksHost({ ...defaultSettings(ORIGIN), mkshost: 'https://console.example' })).toBe(
      'https://console.example',
    );
  });
});
