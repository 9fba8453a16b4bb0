import { tagOf } from '../hypervisor';
import type { ConsoleRole } from '../core/vmViews';
import type { ConsoleSessionInfo } from './routes';

// Who has a machine's console open, told to its gamespace's players: a player sees that an
// observer watches their console, or that an administrator has taken control of it. The list
// goes out on the machine's tag channel (the gamespace's own, where its players listen) as a
// `ConsoleEvent` `CONSOLE.VIEWERS` each time a console of the machine opens or closes, and the
// console page reads it once with its ticket (GET /api/vm-console/{id}, `viewers`).
//
// The open consoles are those of this process: behind a balancer, a viewer whose console socket
// landed on another server is not in this one's list.

export interface ConsoleViewer {
  id: string;
  name: string;
  role: ConsoleRole;
  /** Whether their console drives the machine (false: view only). */
  control: boolean;
}

export interface ConsoleViewersPayload {
  action: 'CONSOLE.VIEWERS';
  actor: { id: string; name: string };
  model: { id: string; viewers: ConsoleViewer[] };
}

export interface ConsoleViewersOptions {
  /** Sends the machine's list to a channel (its isolation tag). Must return at once. */
  publish(channel: string, payload: ConsoleViewersPayload): void;
}

export function createConsoleViewers(options: ConsoleViewersOptions) {
  const open = new Map<string, Set<ConsoleSessionInfo>>();

  /** One row per person, in the order they came; control if any of their consoles has it. */
  function of(machineId: string): ConsoleViewer[] {
    const byPerson = new Map<string, ConsoleViewer>();
    for (const s of open.get(machineId) ?? []) {
      const known = byPerson.get(s.subject.id);
      if (known) known.control ||= !s.viewOnly;
      else {
        byPerson.set(s.subject.id, {
          id: s.subject.id,
          name: s.subject.name,
          role: s.role,
          control: !s.viewOnly,
        });
      }
    }
    return [...byPerson.values()];
  }

  function tell(session: ConsoleSessionInfo) {
    const channel = tagOf(session.machineName);
    if (!channel) return;
    options.publish(channel, {
      action: 'CONSOLE.VIEWERS',
      actor: { id: session.subject.id, name: session.subject.name },
      model: { id: session.machineId, viewers: of(session.machineId) },
    });
  }

  return {
    of,
    opened(session: ConsoleSessionInfo): void {
      const sessions = open.get(session.machineId) ?? new Set();
      open.set(session.machineId, sessions.add(session));
      tell(session);
    },
    closed(session: ConsoleSessionInfo): void {
      const sessions = open.get(session.machineId);
      if (!sessions?.delete(session)) return;
      if (sessions.size === 0) open.delete(session.machineId);
      tell(session);
    },
  };
}

export type ConsoleViewers = ReturnType<typeof createConsoleViewers>;
