import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { PveHttpError, textParam } from './errors';
import type { Routes, Session } from './types';

// Who is calling the PVE API simulator, checked as PVE does: an API token in the header
// `Authorization: PVEAPIToken=user@realm!name=secret`, or a ticket from POST /access/ticket in
// the `PVEAuthCookie` cookie, which on writes must come with the matching
// `CSRFPreventionToken` header. Only a root@pam ticket is "root" (tokens never are, even
// root's own, which is why PVE refuses them root-only options such as `args`).

export interface Auth {
  /** The caller, or a 401 PveHttpError. */
  authenticate(method: string, headers: IncomingHttpHeaders): Session;
  routes: Routes;
}

const ROOT = 'root@pam';

/** PVE's reply to any failed login or bad credential. */
export const authFailure = (reason = 'authentication failure'): PveHttpError =>
  new PveHttpError(401, reason);

const hex8 = (n: number) => n.toString(16).toUpperCase().padStart(8, '0');

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function cookie(headers: IncomingHttpHeaders, name: string): string | undefined {
  for (const part of (headers.cookie ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return decodeURIComponent(rest.join('='));
  }
  return undefined;
}

export function createAuth(options: {
  tokenId: string;
  tokenSecret: string;
  rootPassword: string | null;
}): Auth {
  /** Ticket → its CSRF prevention token. */
  const tickets = new Map<string, string>();

  const fromToken = (header: string): Session => {
    const value = header.slice('PVEAPIToken='.length);
    const at = value.indexOf('=');
    const id = at < 0 ? value : value.slice(0, at);
    const secret = at < 0 ? '' : value.slice(at + 1);
    if (id !== options.tokenId || !sameText(secret, options.tokenSecret)) throw authFailure();
    return { user: id, root: false };
  };

  const fromTicket = (method: string, headers: IncomingHttpHeaders, ticket: string): Session => {
    const csrf = tickets.get(ticket);
    if (csrf === undefined) throw authFailure();
    if (method !== 'GET') {
      const sent = headers.csrfpreventiontoken;
      if (typeof sent !== 'string' || !sameText(sent, csrf)) {
        throw authFailure('Permission denied - invalid csrf token');
      }
    }
    return { user: ROOT, root: true };
  };

  return {
    authenticate(method, headers) {
      const authorization = headers.authorization;
      if (authorization?.startsWith('PVEAPIToken=')) return fromToken(authorization);
      const ticket = cookie(headers, 'PVEAuthCookie');
      if (ticket !== undefined) return fromTicket(method, headers, ticket);
      throw authFailure();
    },
    routes: {
      'POST /access/ticket': ({ params }) => {
        const realm = textParam(params, 'realm');
        const name = textParam(params, 'username') ?? '';
        const username = realm && !name.includes('@') ? `${name}@${realm}` : name;
        const password = textParam(params, 'password') ?? '';
        if (
          username !== ROOT ||
          options.rootPassword === null ||
          !sameText(password, options.rootPassword)
        ) {
          throw authFailure();
        }
        const now = hex8(Math.floor(Date.now() / 1000));
        const ticket = `PVE:${ROOT}:${now}::${randomBytes(48).toString('base64')}`;
        const CSRFPreventionToken = `${now}:${randomBytes(24).toString('base64')}`;
        tickets.set(ticket, CSRFPreventionToken);
        return { ticket, CSRFPreventionToken, username: ROOT };
      },
    },
  };
}
