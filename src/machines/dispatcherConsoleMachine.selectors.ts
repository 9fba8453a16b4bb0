import type { AgentPresence, Dispatch } from '../api/dispatch';
import type { DispatcherConsoleSnapshot } from './dispatcherConsoleMachine';
import { answeredAt } from './dispatcherRules';

export const selectDispatches = (s: DispatcherConsoleSnapshot): Dispatch[] => s.context.entries;
export const selectDispatchDraft = (s: DispatcherConsoleSnapshot): string => s.context.draft;
export const selectDispatcherError = (s: DispatcherConsoleSnapshot): string | null =>
  s.context.error;
export const selectIsLoadingDispatches = (s: DispatcherConsoleSnapshot): boolean =>
  s.hasTag('loading');
export const selectIsSendingDispatch = (s: DispatcherConsoleSnapshot): boolean =>
  s.hasTag('sending');
/** Whether Enter sends: a command to run, and nothing on its way. */
export const selectCanSendDispatch = (s: DispatcherConsoleSnapshot): boolean =>
  s.can({ type: 'dispatcher.sendRequested' });
export const selectCanRefreshDispatches = (s: DispatcherConsoleSnapshot): boolean =>
  s.can({ type: 'dispatcher.refreshRequested' });

/** One log entry as the console shows it. */
export interface DispatchLine {
  id: string;
  /** The target host, or 'all' for every listening agent. */
  target: string;
  trigger: string;
  result: string;
  error: string;
  sentAt: string | null;
  /** null while no agent has answered. */
  answeredAt: string | null;
}

export const dispatchLine = (d: Dispatch): DispatchLine => ({
  id: d.id,
  target: d.targetName || 'all',
  trigger: d.trigger,
  result: d.result ?? '',
  error: d.error ?? '',
  sentAt: d.whenCreated ?? null,
  answeredAt: answeredAt(d),
});

/** Who listens, by machine, as last loaded; null until then, or when the server cannot say. */
export const selectAgents = (s: DispatcherConsoleSnapshot): AgentPresence[] | null =>
  s.context.agents;

/**
 * Whether an agent hears a command sent to `target` (null: every host), as the last load said:
 * 'unknown' when only agents that named no host listen (one of them may be on it), null when
 * the server does not say who listens.
 */
export function agentsFor(
  agents: readonly AgentPresence[] | null,
  target: string | null,
): 'listening' | 'none' | 'unknown' | null {
  if (agents === null) return null;
  const listening = agents.filter((a) => a.agents > 0);
  if (target === null) return listening.length > 0 ? 'listening' : 'none';
  const wanted = target.toLowerCase();
  if (listening.some((a) => a.name?.toLowerCase() === wanted)) return 'listening';
  return listening.some((a) => a.name === null) ? 'unknown' : 'none';
}

/** Why a command still waits, when the console can tell: no agent listens where it went. */
export function waitingNote(agents: readonly AgentPresence[] | null, line: DispatchLine): string {
  if (agentsFor(agents, line.target === 'all' ? null : line.target) !== 'none') return 'waiting';
  return line.target === 'all'
    ? 'waiting: no agent is listening'
    : `waiting: no agent is listening on ${line.target}`;
}

const agentsText = (n: number) => (n === 1 ? 'an agent' : `${n} agents`);

/** One row of the console's list of who listens. */
export function agentLabel(row: AgentPresence): string {
  if (row.name === null) {
    return `${agentsText(row.agents)} without a host name (${row.agents === 1 ? 'it answers' : 'they answer'} commands for every host)`;
  }
  if (!row.isMachine)
    return `${row.name}: ${agentsText(row.agents)} listening, on no machine of this game`;
  return row.agents > 0
    ? `${row.name}: ${agentsText(row.agents)} listening`
    : `${row.name}: no agent`;
}
