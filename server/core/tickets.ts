import type { Actor } from './actor';

// One-time tickets (GET /api/user/ticket, a gamespace's launch ticket) are kept in the shared
// cache under ticketKey for a few seconds; the authenticator (server/auth/authenticate.ts) takes
// them. What a ticket stands for is written here, where both the issuers and the taker read it.

export const ticketKey = (ticket: string) => `tkt:${ticket}`;

/**
 * What a one-time ticket stands for. A ticket of the user's own (GET /api/user/ticket) is stored
 * as the reference stores it, `{id}#{name}`; one issued for a gamespace (a launch ticket, an
 * enlisted guest's, an agent's) carries that gamespace, as JSON (an id never starts with `{`).
 */
export interface TicketSubject {
  id: string;
  name: string;
  /** The only gamespace the ticket reaches. */
  gamespaceId?: string;
  /** The gamespace's agent (its grader key), whose id is the gamespace's. */
  agent?: boolean;
}

export function ticketValue(subject: TicketSubject): string {
  if (!subject.gamespaceId) return `${subject.id}#${subject.name}`;
  return JSON.stringify({
    id: subject.id,
    name: subject.name,
    gamespaceId: subject.gamespaceId,
    ...(subject.agent ? { agent: true } : {}),
  });
}

export function parseTicketValue(value: string): TicketSubject | null {
  if (value.startsWith('{')) {
    try {
      const parsed = JSON.parse(value) as Partial<TicketSubject>;
      if (typeof parsed.id !== 'string' || typeof parsed.gamespaceId !== 'string') return null;
      return {
        id: parsed.id,
        name: typeof parsed.name === 'string' ? parsed.name : '',
        gamespaceId: parsed.gamespaceId,
        agent: parsed.agent === true,
      };
    } catch {
      return null;
    }
  }
  const hash = value.indexOf('#');
  return hash < 0
    ? { id: value, name: '' }
    : { id: value.slice(0, hash), name: value.slice(hash + 1) };
}

/** What a ticket issued to this actor stands for. */
export function subjectOf(actor: Actor): TicketSubject {
  return {
    id: actor.id,
    name: actor.name,
    ...(actor.grant ? { gamespaceId: actor.grant.gamespaceId } : {}),
    ...(actor.isAgent ? { agent: true } : {}),
  };
}
