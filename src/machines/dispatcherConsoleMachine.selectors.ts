import type { Dispatch } from '../api/dispatch';
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
