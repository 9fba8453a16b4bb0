import { createLocalJWKSet, createRemoteJWKSet, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import type { Cache } from '../core/cache';
import { sha256Hex, newToken } from '../core/ids';
import {
  actorFrom,
  agentActor,
  scopedTo,
  signInDisabled,
  type Actor,
  type UserDefaults,
} from '../core/actor';
import {
  parseTicketValue,
  subjectOf,
  ticketKey,
  ticketValue,
  type TicketSubject,
} from '../core/tickets';
import type { UserService } from '../core/users';
import type { ApiKeyRepository } from '../store/repositories/apiKeys';
import type { GamespaceRepository } from '../store/repositories/gamespaces';
import { parseRole, strongest, type RoleName } from '../core/roles';

// The four ways a caller proves who it is (wire reference §5): an OpenID Connect access token
// (JWT bearer), an API key (a user's, or a gamespace's grader key), a one-time ticket, and the
// console cookie. Each route's policy names the schemes it accepts.

// What a ticket stands for is written down in core (server/core/tickets.ts), where launches issue
// tickets too; re-exported for those who import it from here.
export { parseTicketValue, subjectOf, ticketKey, ticketValue, type TicketSubject };

export type Scheme = 'jwt' | 'apikey' | 'ticket' | 'cookie';
export type Policy = 'default' | 'anyUser' | 'admin' | 'cookie' | 'interactive' | 'anonymous';

export const POLICY_SCHEMES: Record<Exclude<Policy, 'anonymous'>, readonly Scheme[]> = {
  default: ['jwt', 'apikey'],
  admin: ['jwt', 'apikey'],
  // Our own: what only the person signed in may do (their password), never a key, a ticket or
  // the console cookie, which can be copied and outlive the sign-in they were made from.
  interactive: ['jwt'],
  anyUser: ['jwt', 'apikey', 'ticket', 'cookie'],
  cookie: ['cookie'],
};

export const MKS_COOKIE = 'topomojo.mks';
export const TICKET_TTL_MS = 30_000;
const endedCookieKey = (id: string) => `mks:ended:${id}`;
/** How many verified access tokens are remembered, and for how long at most. */
export const VERIFIED_TOKENS = 10_000;
export const VERIFIED_TOKEN_MS = 5 * 60_000;

/** A cookie value as sent, or null when it is not valid percent-encoding (then it is ignored). */
function decodeCookie(raw: string): string | null {
  try {
    return decodeURIComponent(raw);
  } catch {
    return null;
  }
}

export interface Credentials {
  bearer?: string;
  ticket?: string;
  apiKey?: string;
  cookie?: string;
}

export interface AuthenticatorOptions {
  users: UserService;
  /** Whose key an API key is, by its hash. */
  apiKeys: Pick<ApiKeyRepository, 'ownerOf'>;
  /** Which gamespace a grader key belongs to, by its hash. */
  gamespaces: Pick<GamespaceRepository, 'withGraderKey'>;
  cache: Cache;
  defaults: UserDefaults;
  issuer: string;
  audience: string;
  /** Public keys of the embedded provider; when absent the issuer's jwks_uri is used. */
  jwks?: { keys: object[] };
  rolesClaimPath: string;
  cookieSecret: Uint8Array;
  cookieMinutes: number;
}

const looksLikeJwt = (s: string) => s.split('.').length === 3;

/** Reads the credentials a request carries (headers, query keys case-insensitively, cookie). */
export function readCredentials(
  headers: Record<string, string | string[] | undefined>,
  query: Record<string, unknown>,
): Credentials {
  const creds: Credentials = {};
  const header = (name: string) => {
    const v = headers[name];
    return Array.isArray(v) ? v[0] : v;
  };
  const authorization = header('authorization')?.trim();
  if (authorization) {
    const [scheme = '', value = '', ...rest] = authorization.split(/\s+/);
    const kind = scheme.toLowerCase();
    if (kind === 'bearer' && value) {
      if (looksLikeJwt(value)) creds.bearer = value;
      else creds.ticket = value;
    } else if (kind === 'ticket' && value) creds.ticket = value;
    else if (kind === 'apikey' && value) creds.apiKey = value;
    void rest;
  }
  const apiKey = header('x-api-key');
  if (apiKey) creds.apiKey = apiKey.trim();
  for (const [key, value] of Object.entries(query)) {
    const k = key.toLowerCase();
    const v = Array.isArray(value) ? value[0] : value;
    // "undefined" is what one reference client sends when it has no ticket.
    if (
      (k === 'ticket' || k === 'access_token') &&
      typeof v === 'string' &&
      v &&
      v !== 'undefined'
    ) {
      creds.ticket ??= v;
    }
  }
  const cookie = header('cookie');
  if (cookie) {
    for (const part of cookie.split(';')) {
      const eq = part.indexOf('=');
      if (eq > 0 && part.slice(0, eq).trim() === MKS_COOKIE) {
        const value = decodeCookie(part.slice(eq + 1).trim());
        if (value) creds.cookie = value;
      }
    }
  }
  return creds;
}

function claimAt(payload: JWTPayload, path: string): unknown {
  let node: unknown = payload;
  for (const key of path.split('.').filter(Boolean)) {
    if (!node || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

export function createAuthenticator(options: AuthenticatorOptions) {
  const { users, apiKeys, gamespaces, cache, defaults } = options;
  let keySet: ReturnType<typeof createLocalJWKSet> | null = options.jwks
    ? createLocalJWKSet(options.jwks as Parameters<typeof createLocalJWKSet>[0])
    : null;

  async function remoteKeys() {
    if (keySet) return keySet;
    const res = await fetch(`${options.issuer}/.well-known/openid-configuration`);
    if (!res.ok) throw new Error(`discovery failed: ${res.status}`);
    const doc = (await res.json()) as { jwks_uri?: string };
    if (!doc.jwks_uri) throw new Error('discovery has no jwks_uri');
    const remote = createRemoteJWKSet(new URL(doc.jwks_uri));
    keySet = remote as unknown as ReturnType<typeof createLocalJWKSet>;
    return keySet;
  }

  function idpRoleOf(payload: JWTPayload): RoleName | null {
    if (!options.rolesClaimPath) return null;
    const raw = claimAt(payload, options.rolesClaimPath);
    const list = Array.isArray(raw) ? raw : typeof raw === 'string' ? [raw] : [];
    return strongest(list.map(parseRole).filter((r): r is RoleName => !!r));
  }

  async function actorForSubject(
    id: string,
    name: string,
    idpRole: RoleName | null,
  ): Promise<Actor> {
    const { row, signInDisabled: disabled } = await users.findCaller(id);
    const actor = actorFrom(row, { id, name }, idpRole, defaults);
    return disabled ? signInDisabled(actor) : actor;
  }

  // Tokens whose signature, issuer and audience were verified, until they expire (at most
  // VERIFIED_TOKEN_MS): a client sends the same token with every request, and verifying an RS256
  // signature costs more than the rest of a typical read. Only successes are kept.
  const verified = new Map<string, { payload: JWTPayload; until: number }>();

  async function verifiedPayload(token: string): Promise<JWTPayload | null> {
    const now = Date.now();
    const kept = verified.get(token);
    if (kept) {
      if (now < kept.until) return kept.payload;
      // Expired, or remembered long enough: verified anew (and refused once expired).
      verified.delete(token);
    }
    let payload: JWTPayload;
    try {
      const keys = await remoteKeys();
      ({ payload } = await jwtVerify(token, keys, {
        issuer: options.issuer,
        audience: options.audience,
      }));
    } catch {
      return null;
    }
    const expires = typeof payload.exp === 'number' ? payload.exp * 1000 : Infinity;
    if (verified.size >= VERIFIED_TOKENS) verified.delete(verified.keys().next().value!);
    verified.set(token, { payload, until: Math.min(expires, now + VERIFIED_TOKEN_MS) });
    return payload;
  }

  async function fromJwt(token: string): Promise<Actor | null> {
    const payload = await verifiedPayload(token);
    if (!payload) return null;
    const clientId = typeof payload.client_id === 'string' ? payload.client_id : undefined;
    const name =
      (typeof payload.name === 'string' && payload.name) ||
      (typeof payload.preferred_username === 'string' && payload.preferred_username) ||
      '';
    const idpRole = idpRoleOf(payload);
    // A client-credentials token (no subject, or the subject is the client itself) stands for a
    // service account. RFC 9068 access tokens carry client_id on user tokens too, so the claim
    // alone cannot mean "service account" as it does in the reference.
    if (clientId && (!payload.sub || payload.sub === clientId)) {
      const row = await users.findByServiceAccount(clientId);
      if (row) return actorFrom(row, { id: row.id, name: row.name }, idpRole, defaults);
      if (!payload.sub) return null;
    }
    const sub = payload.sub ?? clientId;
    if (!sub) return null;
    return actorForSubject(sub, name, idpRole);
  }

  async function fromApiKey(key: string): Promise<Actor | null> {
    const hash = sha256Hex(key);
    const owner = await apiKeys.ownerOf(hash);
    if (owner) return actorFrom(owner, { id: owner.id, name: owner.name }, null, defaults);
    const gamespaceId = await gamespaces.withGraderKey(hash);
    return gamespaceId ? agentActor(gamespaceId) : null;
  }

  /** The actor a ticket or cookie stands for, held to its gamespace when it names one. */
  async function actorOfSubject(subject: TicketSubject, idpRole: RoleName | null) {
    if (subject.agent && subject.gamespaceId === subject.id) return agentActor(subject.id);
    const actor = await actorForSubject(subject.id, subject.name, idpRole);
    return subject.gamespaceId ? scopedTo(actor, subject.gamespaceId) : actor;
  }

  async function fromTicket(ticket: string): Promise<Actor | null> {
    const value = await cache.take(ticketKey(ticket));
    const subject = value ? parseTicketValue(value) : null;
    return subject ? actorOfSubject(subject, null) : null;
  }

  async function cookiePayload(cookie: string): Promise<JWTPayload | null> {
    try {
      return (await jwtVerify(cookie, options.cookieSecret, { algorithms: ['HS256'] })).payload;
    } catch {
      return null;
    }
  }

  async function fromCookie(cookie: string): Promise<Actor | null> {
    const payload = await cookiePayload(cookie);
    if (!payload?.sub) return null;
    // A cookie its holder signed out with (POST /api/user/logout) is over before it expires.
    if (payload.jti && (await cache.get(endedCookieKey(payload.jti))) !== null) return null;
    const subject: TicketSubject = {
      id: payload.sub,
      name: typeof payload.name === 'string' ? payload.name : '',
      ...(typeof payload.gs === 'string' ? { gamespaceId: payload.gs } : {}),
      agent: payload.agt === true,
    };
    return actorOfSubject(subject, subject.gamespaceId ? null : parseRole(payload.idp));
  }

  return {
    /** The actor of the first scheme (in the policy's order) whose credential is valid. */
    async authenticate(creds: Credentials, schemes: readonly Scheme[]): Promise<Actor | null> {
      for (const scheme of schemes) {
        let actor: Actor | null = null;
        if (scheme === 'jwt' && creds.bearer) actor = await fromJwt(creds.bearer);
        else if (scheme === 'apikey' && creds.apiKey) actor = await fromApiKey(creds.apiKey);
        else if (scheme === 'ticket' && creds.ticket) actor = await fromTicket(creds.ticket);
        else if (scheme === 'cookie' && creds.cookie) actor = await fromCookie(creds.cookie);
        if (actor) return { ...actor, via: scheme };
      }
      return null;
    },

    /** The actor of a subject already proven another way (the hub's negotiated connection). */
    actorForSubject: (subject: TicketSubject) => actorOfSubject(subject, null),

    /**
     * A one-time ticket for the actor: 30 s, single use. It reaches no more than the credential
     * it was asked with: an actor held to a gamespace gets a ticket held to it.
     */
    async issueTicket(actor: Actor, ttlMs = TICKET_TTL_MS): Promise<string> {
      const ticket = newToken();
      await cache.set(ticketKey(ticket), ticketValue(subjectOf(actor)), ttlMs);
      return ticket;
    },

    /**
     * The console cookie's value: the actor's claims, signed, for `cookieMinutes`; the gamespace
     * it is held to, if any, goes with it.
     */
    async cookieFor(actor: Actor): Promise<string> {
      return new SignJWT({
        name: actor.name,
        idp: actor.grant ? undefined : (actor.lastIdpAssignedRole ?? undefined),
        gs: actor.grant?.gamespaceId,
        agt: actor.isAgent || undefined,
      })
        .setProtectedHeader({ alg: 'HS256' })
        .setJti(newToken())
        .setSubject(actor.id)
        .setIssuedAt()
        .setExpirationTime(`${options.cookieMinutes}m`)
        .sign(options.cookieSecret);
    },

    /**
     * Ends a console cookie before it expires (POST /api/user/logout): it is remembered in the
     * shared cache until it would have expired, so every server refuses it from now on.
     */
    async endCookie(cookie: string): Promise<void> {
      const payload = await cookiePayload(cookie);
      if (!payload?.jti || !payload.exp) return;
      const leftMs = payload.exp * 1000 - Date.now();
      if (leftMs > 0) await cache.set(endedCookieKey(payload.jti), '1', leftMs);
    },
  };
}

export type Authenticator = ReturnType<typeof createAuthenticator>;
