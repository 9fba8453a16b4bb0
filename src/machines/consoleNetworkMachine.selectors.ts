import type { ConsoleNetworkSnapshot } from './consoleNetworkMachine';

export const selectNets = (snapshot: ConsoleNetworkSnapshot): string[] => snapshot.context.nets;
export const selectNicNets = (snapshot: ConsoleNetworkSnapshot): string[] =>
  snapshot.context.nicNets;
/** The switcher is offered once the networks are known. */
export const selectHasNetworks = (snapshot: ConsoleNetworkSnapshot): boolean =>
  snapshot.matches('ready') || snapshot.matches('changing');
export const selectIsChangingNet = (snapshot: ConsoleNetworkSnapshot): boolean =>
  snapshot.matches('changing');
export const selectNetworkError = (snapshot: ConsoleNetworkSnapshot): string | null =>
  snapshot.context.networkError;
