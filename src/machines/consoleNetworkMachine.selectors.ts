import type { ConsoleNetworkSnapshot } from './consoleNetworkMachine';
import { splitVmName } from './vmControllerRules';

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

/**
 * How a network reads in the switcher: its name without the lab's isolation tag ('lan', not
 * 'lan#<32 hex>'). The tag tells players nothing, and every network offered is of this lab or
 * shared ('bridge-net'); a name that two networks of the list share keeps its tag.
 */
export function netLabel(net: string, nets: readonly string[]): string {
  const { name } = splitVmName(net);
  const same = nets.filter((other) => other !== net && splitVmName(other).name === name);
  return same.length > 0 ? net : name;
}
