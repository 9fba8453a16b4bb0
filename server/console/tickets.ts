import type { Cache } from '../core/cache';
import { newToken } from '../core/ids';
import type { ConsoleTickets } from '../hypervisor/driver';

// One-time console tickets for machines whose consoles this server serves (server/console/rfb).
// The ticket in the WebSocket URL is the only credential of the console socket (browsers cannot
// set headers on a WebSocket), so it lives briefly, works once, and only for the machine it was
// issued for. It is kept in the shared Cache so any server behind the balancer can redeem it.

/** How long an unredeemed ticket stays valid. */
export const CONSOLE_TICKET_TTL_MS = 60_000;

const keyOf = (ticket: string): string => `console:ticket:${ticket}`;

/** The console WebSocket path for a machine and ticket (made absolute by the VM routes). */
export const consolePath = (vmId: string, ticket: string): string =>
  `/api/console/vnc/${encodeURIComponent(vmId)}?ticket=${ticket}`;

export interface ConsoleTicketStore extends ConsoleTickets {
  /** True once for a live ticket issued for this machine; the ticket is spent either way. */
  redeem(ticket: string, vmId: string): Promise<boolean>;
}

export function createConsoleTickets(cache: Cache): ConsoleTicketStore {
  return {
    async issue(vmId) {
      const ticket = newToken();
      await cache.set(keyOf(ticket), vmId, CONSOLE_TICKET_TTL_MS);
      return { ticket, url: consolePath(vmId, ticket) };
    },
    async redeem(ticket, vmId) {
      // Reject anything that is not the token shape before touching the cache key space.
      if (!/^[0-9a-f]{32}$/.test(ticket)) return false;
      const boundTo = await cache.take(keyOf(ticket));
      return boundTo !== null && boundTo === vmId;
    },
  };
}
