import type { DriverEvent } from './types';

// The listeners of a driver's events (HypervisorDriver.subscribe): each event reaches every
// listener, and one that throws neither stops the others nor the driver.

export type DriverListener = (event: DriverEvent) => void;

export function createListeners(onError: (error: unknown) => void) {
  const listeners = new Set<DriverListener>();
  return {
    emit(event: DriverEvent): void {
      for (const listener of listeners) {
        try {
          listener(event);
        } catch (error) {
          onError(error);
        }
      }
    },
    /** Adds a listener; returns its removal. */
    subscribe(listener: DriverListener): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    clear(): void {
      listeners.clear();
    },
  };
}
