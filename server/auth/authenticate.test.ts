import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createMemoryCache } from '../core/cache';
import { actorFrom, agentActor, scopedTo } from '../core/actor';
import type { UserService } from '../core/users';
import { sha256Hex } from '../core/ids';
import type { UserTable } from '../store/schema';
import {
  createAuthenticator,
  parseTicketValue,
  readCredentials,
  ticketValue,
  VERIFIED_TOKEN_MS,
} from './authenticate';
import { ROLE_NUMBERS } from '../core/roles';

// Bearer tokens: the signature, issuer and audience are verified once per token and remembered
// until the token expires; the user's row is read on every request all the same.

type Key = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

const ISSUER = 'https://id.example.test';
const AUDIENCE = 'topoplay-api';

/** No API key and no grader key is known. */
const NO_KEYS = {
  apiKeys: { ownerOf: async () => undefined },
  gamespaces: { withGraderKey: async () => undefined },
};

describe('bearer tokens', () => {
  let privateKey: Key;
  let otherKey: Key;
  let jwk: object;
  let row: UserTable | null = null;

  beforeAll(async () => {
    const pair = await generateKeyPair('RS256');
    privateKey = pair.privateKey;
    otherKey = (await generateKeyPair('RS256')).privateKey;
    jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256' };
  });
  afterEach(() => vi.useRealTimers());

  const authenticator = () =>
    createAuthenticator({
      ...NO_KEYS,
      users: {
        findCaller: async () => ({ row, signInDisabled: false }),
        findByServiceAccount: async () => null,
      } as unknown as UserService,
      cache: createMemoryCache(),
      defaults: { workspaceLimit: 0, gamespaceLimit: 2 },
      issuer: ISSUER,
      audience: AUDIENCE,
      jwks: { keys: [jwk] },
      rolesClaimPath: '',
      cookieSecret: new Uint8Array(32),
      cookieMinutes: 60,
    });

  const token = (options: { seconds?: number; key?: Key; audience?: string } = {}) =>
    new SignJWT({ name: 'Ada' })
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .setSubject('ada')
      .setIssuer(ISSUER)
      .setAudience(options.audience ?? AUDIENCE)
      .setIssuedAt()
      .setExpirationTime(Math.floor(Date.now() / 1000) + (options.seconds ?? 3600))
      .sign(options.key ?? privateKey);

  it('accepts a valid token again and again, and refuses it once it expired', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: 1_800_000_000_000 });
    const auth = authenticator();
    const bearer = await token({ seconds: 60 });
    for (let i = 0; i < 3; i++) {
      expect((await auth.authenticate({ bearer }, ['jwt']))?.id).toBe('ada');
    }
    vi.setSystemTime(1_800_000_000_000 + 60_000);
    expect(await auth.authenticate({ bearer }, ['jwt'])).toBeNull();
  });

  it('verifies a remembered token anew after VERIFIED_TOKEN_MS', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: 1_800_000_000_000 });
    const auth = authenticator();
    const bearer = await token({ seconds: 3 * 3600 });
    expect(await auth.authenticate({ bearer }, ['jwt'])).not.toBeNull();
    vi.setSystemTime(1_800_000_000_000 + VERIFIED_TOKEN_MS);
    // Verified anew: still valid, so accepted.
    expect((await auth.authenticate({ bearer }, ['jwt']))?.id).toBe('ada');
  });

  it('refuses a token signed by another key or for another audience, every time', async () => {
    const auth = authenticator();
    const forged = await token({ key: otherKey });
    const elsewhere = await token({ audience: 'another-api' });
    for (let i = 0; i < 2; i++) {
      expect(await auth.authenticate({ bearer: forged }, ['jwt'])).toBeNull();
      expect(await auth.authenticate({ bearer: elsewhere }, ['jwt'])).toBeNull();
    }
  });

  it("reads the user's row on every request, so a role change counts at once", async () => {
    const auth = authenticator();
    const bearer = await token();
    row = null;
    expect((await auth.authenticate({ bearer }, ['jwt']))?.isAdmin).toBe(false);
    row = {
      id: 'ada',
      name: 'Ada',
      scope: '',
      workspaceLimit: 0,
      gamespaceLimit: 2,
      gamespaceMaxMinutes: 0,
      gamespaceCleanupGraceMinutes: 0,
      role: ROLE_NUMBERS.administrator,
      lastIdpAssignedRole: null,
      serviceAccountClientId: null,
      whenCreated: 0,
      registrar: 0,
    };
    expect((await auth.authenticate({ bearer }, ['jwt']))?.isAdmin).toBe(true);
    row = { ...row, role: ROLE_NUMBERS.user };
    expect((await auth.authenticate({ bearer }, ['jwt']))?.isAdmin).toBe(false);
    row = null;
  });
});

describe('tickets and cookies held to a gamespace', () => {
  const admin: UserTable = {
    id: 'root',
    name: 'Root',
    scope: '',
    workspaceLimit: 0,
    gamespaceLimit: 0,
    gamespaceMaxMinutes: 0,
    gamespaceCleanupGraceMinutes: 0,
    role: ROLE_NUMBERS.administrator,
    lastIdpAssignedRole: null,
    serviceAccountClientId: null,
    whenCreated: 0,
    registrar: 0,
  };
  const auth = createAuthenticator({
    ...NO_KEYS,
    users: {
      findCaller: async (id: string) => ({
        row: id === admin.id ? admin : null,
        signInDisabled: false,
      }),
      findByServiceAccount: async () => null,
    } as unknown as UserService,
    cache: createMemoryCache(),
    defaults: { workspaceLimit: 0, gamespaceLimit: 2 },
    issuer: ISSUER,
    audience: AUDIENCE,
    jwks: { keys: [] },
    rolesClaimPath: '',
    cookieSecret: new Uint8Array(32).fill(7),
    cookieMinutes: 60,
  });

  it('keeps the reference format for a user’s own ticket and reads both formats back', () => {
    expect(ticketValue({ id: 'u1', name: 'Ada#1' })).toBe('u1#Ada#1');
    expect(parseTicketValue('u1#Ada#1')).toEqual({ id: 'u1', name: 'Ada#1' });
    const scoped = { id: 'u1', name: 'Ada', gamespaceId: 'g1', agent: false };
    expect(parseTicketValue(ticketValue(scoped))).toEqual(scoped);
    expect(parseTicketValue('{not json')).toBeNull();
  });

  it('strips every role from an admin held to a gamespace, through the ticket and the cookie', async () => {
    const held = scopedTo(
      actorFrom(admin, { id: admin.id, name: admin.name }, null, {
        workspaceLimit: 0,
        gamespaceLimit: 0,
      }),
      'g1',
    );
    expect(held).toMatchObject({ isAdmin: false, isObserver: false, grant: { gamespaceId: 'g1' } });
    const ticket = await auth.issueTicket(held);
    const fromTicket = await auth.authenticate({ ticket }, ['ticket']);
    expect(fromTicket).toMatchObject({ id: 'root', isAdmin: false, grant: { gamespaceId: 'g1' } });
    const cookie = await auth.cookieFor(fromTicket!);
    const fromCookie = await auth.authenticate({ cookie }, ['cookie']);
    expect(fromCookie).toMatchObject({ id: 'root', isAdmin: false, grant: { gamespaceId: 'g1' } });
  });

  it('gives an agent’s ticket the agent back, held to its gamespace', async () => {
    const ticket = await auth.issueTicket(agentActor('g2'));
    const actor = await auth.authenticate({ ticket }, ['ticket']);
    expect(actor).toMatchObject({ id: 'g2', isAgent: true, grant: { gamespaceId: 'g2' } });
  });

  it('ignores a console cookie that is not valid percent-encoding', () => {
    expect(
      readCredentials({ cookie: 'topomojo.mks=%E0%A4%A; other=1' }, {}).cookie,
    ).toBeUndefined();
    expect(readCredentials({ cookie: 'topomojo.mks=a%2Eb' }, {}).cookie).toBe('a.b');
  });
});

describe('API keys', () => {
  const owner: UserTable = {
    id: 'ada',
    name: 'Ada',
    scope: '',
    workspaceLimit: 0,
    gamespaceLimit: 0,
    gamespaceMaxMinutes: 0,
    gamespaceCleanupGraceMinutes: 0,
    role: ROLE_NUMBERS.creator,
    lastIdpAssignedRole: null,
    serviceAccountClientId: null,
    whenCreated: 0,
    registrar: 0,
  };
  // Keys are looked up by their hash, never by their value.
  const auth = createAuthenticator({
    apiKeys: { ownerOf: async (hash) => (hash === sha256Hex('user-key') ? owner : undefined) },
    gamespaces: {
      withGraderKey: async (hash) => (hash === sha256Hex('grader-key') ? 'g3' : undefined),
    },
    users: {} as UserService,
    cache: createMemoryCache(),
    defaults: { workspaceLimit: 0, gamespaceLimit: 2 },
    issuer: ISSUER,
    audience: AUDIENCE,
    jwks: { keys: [] },
    rolesClaimPath: '',
    cookieSecret: new Uint8Array(32),
    cookieMinutes: 60,
  });

  it("stands for the key's owner, a grader key for its gamespace's agent, anything else for no one", async () => {
    expect(await auth.authenticate({ apiKey: 'user-key' }, ['apikey'])).toMatchObject({
      id: 'ada',
      isCreator: true,
      isAgent: false,
      via: 'apikey',
    });
    expect(await auth.authenticate({ apiKey: 'grader-key' }, ['apikey'])).toMatchObject({
      id: 'g3',
      isAgent: true,
      grant: { gamespaceId: 'g3' },
    });
    expect(await auth.authenticate({ apiKey: 'unknown-key' }, ['apikey'])).toBeNull();
  });
});
