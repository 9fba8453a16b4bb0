// How many console sockets may be open at once on this server process: per viewer (the subject
// the ticket was handed to), per machine, per client address (the forwarded one behind a trusted
// proxy) and in all. Every cap is at least 1: a cap no setting can switch off. The viewer's own
// cap is looked at first, so someone who opens too many meets their own limit long before they
// fill a machine's or the server's; the machine's cap is above any one viewer's, so a co-player
// cannot lock the others out of a shared machine alone.

export interface ConsoleLimits {
  perUser: number;
  perMachine: number;
  perAddress: number;
  perServer: number;
  /** How long a viewer has, from the socket's upgrade, to finish the RFB handshake. */
  handshakeTimeoutMs: number;
}

export const DEFAULT_CONSOLE_LIMITS: ConsoleLimits = {
  perUser: 8,
  perMachine: 24,
  perAddress: 256,
  perServer: 1_000,
  handshakeTimeoutMs: 10_000,
};

/** The close reason of a viewer that did not finish the handshake in time. */
export const HANDSHAKE_TIMEOUT_REASON = 'The console handshake took too long.';

const consoles = (n: number): string => (n === 1 ? '1 console' : `${n} consoles`);

export const userCapReason = (max: number): string =>
  `You have ${consoles(max)} open, the most allowed. Close one to open another.`;
export const machineCapReason = (max: number): string =>
  `This machine has ${consoles(max)} open, the most allowed. Try again when one closes.`;
export const addressCapReason = (max: number): string =>
  `Your network address has ${consoles(max)} open, the most allowed.`;
export const serverCapReason = (max: number): string =>
  `The server has ${consoles(max)} open, the most it allows. Try again in a moment.`;

export interface ConsoleSlot {
  release(): void;
}

export interface ConsoleHolder {
  user: string;
  machine: string;
  address: string;
}

export function createConsoleSlots(limits: ConsoleLimits) {
  const users = new Map<string, number>();
  const machines = new Map<string, number>();
  const addresses = new Map<string, number>();
  let total = 0;

  const add = (counts: Map<string, number>, key: string, by: number) => {
    const next = (counts.get(key) ?? 0) + by;
    if (next > 0) counts.set(key, next);
    else counts.delete(key);
  };

  return {
    /** A slot for this viewer, or the reason it cannot have one. */
    acquire(holder: ConsoleHolder): ConsoleSlot | { refused: string } {
      if ((users.get(holder.user) ?? 0) >= limits.perUser) {
        return { refused: userCapReason(limits.perUser) };
      }
      if ((machines.get(holder.machine) ?? 0) >= limits.perMachine) {
        return { refused: machineCapReason(limits.perMachine) };
      }
      if ((addresses.get(holder.address) ?? 0) >= limits.perAddress) {
        return { refused: addressCapReason(limits.perAddress) };
      }
      if (total >= limits.perServer) return { refused: serverCapReason(limits.perServer) };
      add(users, holder.user, 1);
      add(machines, holder.machine, 1);
      add(addresses, holder.address, 1);
      total += 1;
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          add(users, holder.user, -1);
          add(machines, holder.machine, -1);
          add(addresses, holder.address, -1);
          total -= 1;
        },
      };
    },
    /** Sockets holding a slot now. */
    get open(): number {
      return total;
    },
  };
}

export type ConsoleSlots = ReturnType<typeof createConsoleSlots>;
