import type { Cache } from '../core/cache';
import { newToken } from '../core/ids';
import type { ConsoleTickets } from '../hypervisor';

// One-time console tickets for machines whose consoles this server serves (server/console/routes).
// The ticket in the WebSocket URL is the only credential of the console socket (browsers cannot
// set headers on a WebSocket), so it lives briefly, works once, and only for the machine it was
// issued for. It is kept in the shared Cache so any server behind the balancer can redeem it.

/** How long an unredeemed ticket stays valid. */
export const CONSOLE_TICKET_TTL_MS = 60_000;

const keyOf = (ticket: string): string => `console:ticket:${ticket}`;

/** The console WebSocket path for a machine and ticket (made absolute by the VM routes). */
export const consolePath = (vmId: string, ticket: string): string =>
  `/api/console/vnc/${encodeURIComponent(vmId)}?ticket=${ticket}`;

/** Who a redeemed ticket was handed to: a subject id, or null when it was never bound. */
export interface RedeemedTicket {
  subject: string | null;
}

export interface ConsoleTicketStore extends ConsoleTickets {
  /**
   * Binds a ticket the driver issued to the subject it is handed to (GET /api/vm-console/{id}),
   * so that the console socket can tell whose it is.
   */
  bind(ticket: string, subject: string): Promise<void>;
  /** Once for a live ticket issued for this machine, null otherwise; spent either way. */
  take(ticket: string, vmId: string): Promise<RedeemedTicket | null>;
  /** True once for a live ticket issued for this machine; the ticket is spent either way. */
  redeem(ticket: string, vmId: string): Promise<boolean>;
}

const TOKEN = /^[0-9a-f]{32}$/;

// The cached value: the machine id, then the subject once bound, separated by a space (neither
// holds one).
export function createConsoleTickets(cache: Cache): ConsoleTicketStore {
  const take = async (ticket: string, vmId: string): Promise<RedeemedTicket | null> => {
    // Reject anything that is not the token shape before touching the cache key space.
    if (!TOKEN.test(ticket)) return null;
    const value = await cache.take(keyOf(ticket));
    if (value === null) return null;
    const [machine, subject] = value.split(' ');
    return machine === vmId ? { subject: subject || null } : null;
  };
  return {
    async issue(vmId) {
      const ticket = newToken();
      await cache.set(keyOf(ticket), vmId, CONSOLE_TICKET_TTL_MS);
      return { ticket, url: consolePath(vmId, ticket) };
    },
    async bind(ticket, subject) {
      if (!TOKEN.test(ticket) || /\s/.test(subject)) return;
      const value = await cache.get(keyOf(ticket));
      if (value === null || value.includes(' ')) return;
      await cache.set(keyOf(ticket), `${value} ${subject}`, CONSOLE_TICKET_TTL_MS);
    },
    take,
    redeem: async (ticket, vmId) => (await take(ticket, vmId)) !== null,
  };
}
