import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import type { JWK } from 'jose';
import type { Db } from '../store/db';
import { sharedSecret } from '../store/secrets';

// Secrets of the embedded provider live in keyValues: the first process to start creates them,
// every later start and every other process reads the same ones, so tokens and cookies stay
// valid across restarts and behind a load balancer.

const JWKS_KEY = 'identity.jwks';
const COOKIE_KEYS_KEY = 'identity.cookieKeys';

const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'] as const;

/** Generated at most once per database, so a blocking call is fine here. */
function createSigningKeys(): string {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = privateKey.export({ format: 'jwk' }) as JWK;
  // RFC 7638 thumbprint: the required members of an RSA key, in lexicographic order.
  const kid = createHash('sha256')
    .update(JSON.stringify({ e: jwk.e, kty: jwk.kty, n: jwk.n }))
    .digest('base64url');
  return JSON.stringify({ keys: [{ ...jwk, kid, alg: 'RS256', use: 'sig' }] });
}

export async function loadSigningKeys(db: Db): Promise<{ keys: JWK[] }> {
  return JSON.parse(await sharedSecret(db, JWKS_KEY, createSigningKeys)) as { keys: JWK[] };
}

export async function loadCookieKeys(db: Db): Promise<string[]> {
  const create = () => JSON.stringify([randomBytes(32).toString('base64url')]);
  return JSON.parse(await sharedSecret(db, COOKIE_KEYS_KEY, create)) as string[];
}

/** The public half of a key set, safe to publish and to verify tokens with. */
export function publicKeys(jwks: { keys: JWK[] }): { keys: JWK[] } {
  return {
    keys: jwks.keys.map((key) => {
      const copy: JWK = { ...key };
      for (const member of PRIVATE_MEMBERS) delete copy[member];
      return copy;
    }),
  };
}
