import type { HubEventHandler, HubEventSource } from '../hub';

/**
 * An event source like SignalR's for the streams' tests: handlers by event name, matched
 * case-insensitively as the client does; `emit` is the server sending an event.
 */
export function fakeHubSource() {
  const handlers = new Map<string, Set<HubEventHandler>>();
  const source: HubEventSource = {
    on(name, handler) {
      const key = name.toLowerCase();
      handlers.set(key, (handlers.get(key) ?? new Set()).add(handler));
    },
    off(name, handler) {
      handlers.get(name.toLowerCase())?.delete(handler);
    },
  };
  return {
    source,
    emit: (name: string, ...args: unknown[]) =>
      [...(handlers.get(name.toLowerCase()) ?? [])].forEach((handler) => handler(...args)),
    attached: (name: string) => handlers.get(name.toLowerCase())?.size ?? 0,
  };
}
