import type { Cache } from '../core/cache';
import { newToken } from '../core/ids';
import type { ConsoleTickets } from '../hypervisor';

// One-time console tickets for machines whose consoles this server serves (server/console/routes).
// The ticket in the WebSocket URL is the only credential of the console socket (browsers cannot
// set headers on a WebSocket), so it lives briefly, works once, only for the machine it was
// issued for, and only for the subject it was handed to: GET /api/vm-console/{id} binds it, and
// the socket opens as that subject, whose right to the machine is checked again then. It is kept
// in the shared Cache so any server behind the balancer can redeem it.

/** How long an unredeemed ticket stays valid. */
export const CONSOLE_TICKET_TTL_MS = 60_000;

const keyOf = (ticket: string): string => `console:ticket:${ticket}`;

/** The console WebSocket path for a machine and ticket (made absolute by the VM routes). */
export const consolePath = (vmId: string, ticket: string): string =>
  `/api/console/vnc/${encodeURIComponent(vmId)}?ticket=${ticket}`;

/** Who a ticket was handed to: the subject of the credential that asked for it. */
export interface ConsoleSubject {
  id: string;
  name: string;
  /** The only gamespace that credential reaches (a launch link's cookie or ticket). */
  gamespaceId?: string;
  /** The gamespace's agent. */
  agent?: boolean;
  /** Ours: the console opens to watch only; its input is dropped (./viewOnly.ts). */
  viewOnly?: boolean;
}

export interface ConsoleTicketStore extends ConsoleTickets {
  /**
   * Binds a ticket the driver issued to the subject it is handed to (GET /api/vm-console/{id}),
   * so that the console socket opens as that subject and no one else.
   */
  bind(ticket: string, subject: ConsoleSubject): Promise<void>;
  /**
   * Once for a live ticket issued for this machine and bound to a subject: that subject; null
   * otherwise. Spent either way.
   */
  take(ticket: string, vmId: string): Promise<ConsoleSubject | null>;
}

const TOKEN = /^[0-9a-f]{32}$/;

interface Stored {
  vm: string;
  subject?: ConsoleSubject;
}

function parse(value: string): Stored | null {
  try {
    const stored = JSON.parse(value) as Partial<Stored>;
    if (typeof stored.vm !== 'string') return null;
    const subject = stored.subject;
    if (subject && (typeof subject.id !== 'string' || typeof subject.name !== 'string')) {
      return null;
    }
    return stored as Stored;
  } catch {
    return null;
  }
}

export function createConsoleTickets(cache: Cache): ConsoleTicketStore {
  return {
    async issue(vmId) {
      const ticket = newToken();
      await cache.set(keyOf(ticket), JSON.stringify({ vm: vmId }), CONSOLE_TICKET_TTL_MS);
      return { ticket, url: consolePath(vmId, ticket) };
    },
    async bind(ticket, subject) {
      if (!TOKEN.test(ticket)) return;
      const value = await cache.get(keyOf(ticket));
      const stored = value === null ? null : parse(value);
      if (!stored || stored.subject) return;
      const bound: Stored = {
        vm: stored.vm,
        subject: {
          id: subject.id,
          name: subject.name,
          ...(subject.gamespaceId ? { gamespaceId: subject.gamespaceId } : {}),
          ...(subject.agent ? { agent: true } : {}),
          ...(subject.viewOnly ? { viewOnly: true } : {}),
        },
      };
      await cache.set(keyOf(ticket), JSON.stringify(bound), CONSOLE_TICKET_TTL_MS);
    },
    async take(ticket, vmId) {
      // Reject anything that is not the token shape before touching the cache key space.
      if (!TOKEN.test(ticket)) return null;
      const value = await cache.take(keyOf(ticket));
      const stored = value === null ? null : parse(value);
      // A ticket nobody was handed (a driver's display read outside GET /api/vm-console) opens
      // nothing: the socket has no one to open it as.
      return stored?.vm === vmId && stored.subject ? stored.subject : null;
    },
  };
}
