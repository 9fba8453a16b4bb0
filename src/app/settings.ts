import * as E from 'fp-ts/Either';
import * as t from 'io-ts';

/**
 * The identity block of assets/settings.json. It is handed to oidc-client-ts as is, so fields
 * this codec does not name (extraQueryParams, resource, ...) pass through to the UserManager.
 */
const OidcSettingsCodec = t.partial({
  authority: t.string,
  client_id: t.string,
  redirect_uri: t.string,
  silent_redirect_uri: t.string,
  post_logout_redirect_uri: t.string,
  scope: t.string,
  response_type: t.string,
  loadUserInfo: t.boolean,
  autoLogin: t.boolean,
  autoLogout: t.boolean,
  useLocalStorage: t.boolean,
  silentRenewIfActiveSeconds: t.number,
  debug: t.boolean,
});

const AppSettingsCodec = t.partial({
  appname: t.string,
  apphost: t.string,
  mkshost: t.string,
  enable_upload: t.boolean,
  oidc: OidcSettingsCodec,
});

export interface OidcSettings {
  authority: string;
  client_id: string;
  redirect_uri: string;
  silent_redirect_uri: string;
  post_logout_redirect_uri: string;
  scope: string;
  /** Only 'code' is accepted: login refuses to start otherwise (spec §5). */
  response_type: string;
  loadUserInfo: boolean;
  autoLogin: boolean;
  autoLogout: boolean;
  useLocalStorage: boolean;
  silentRenewIfActiveSeconds: number;
  debug: boolean;
  [passThrough: string]: unknown;
}

export interface AppSettings {
  appname: string;
  /** Where the API lives; '' is the SPA's own origin. */
  apphost: string;
  /** The machine-console service host; '' falls back to 'mks' (see `mksHost`). */
  mkshost: string;
  enable_upload: boolean;
  oidc: OidcSettings;
}

export const SETTINGS_URL = '/assets/settings.json';

/** Defaults used for every field missing from settings.json, or for all of them when it fails. */
export function defaultSettings(origin: string): AppSettings {
  return {
    appname: 'Topoplay',
    apphost: '',
    mkshost: '',
    enable_upload: false,
    oidc: {
      authority: '',
      client_id: '',
      redirect_uri: `${origin}/oidc`,
      silent_redirect_uri: `${origin}/oidc-silent`,
      post_logout_redirect_uri: `${origin}/`,
      scope: 'openid profile',
      response_type: 'code',
      loadUserInfo: true,
      autoLogin: false,
      autoLogout: false,
      useLocalStorage: false,
      silentRenewIfActiveSeconds: 0,
      debug: false,
    },
  };
}

/** Merges a settings document over the defaults; an invalid document yields the defaults. */
export function resolveSettings(document: unknown, origin: string): AppSettings {
  const defaults = defaultSettings(origin);
  const decoded = AppSettingsCodec.decode(document);
  if (E.isLeft(decoded)) return defaults;
  const { oidc, ...rest } = decoded.right;
  return { ...defaults, ...rest, oidc: { ...defaults.oidc, ...oidc } };
}

/** The machine-console host, which falls back to 'mks' beside the SPA (spec §7 Settings). */
export function mksHost(settings: AppSettings): string {
  return settings.mkshost || 'mks';
}

/** Loads assets/settings.json; any failure (network, status, JSON, shape) gives the defaults. */
export async function loadSettings(
  origin: string,
  doFetch: typeof fetch = (input, init) => fetch(input, init),
): Promise<AppSettings> {
  try {
    const response = await doFetch(SETTINGS_URL, { headers: { Accept: 'application/json' } });
    if (!response.ok) return defaultSettings(origin);
    return resolveSettings(await response.json(), origin);
  } catch {
    return defaultSettings(origin);
  }
}
