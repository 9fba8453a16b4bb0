// Deploys under way, by machine name, for the lifecycle (lifecycle.ts createDriver): a deploy of
// a name already under way, by a deploy or a batch, is that deploy, so one name deploys once.

import type { Machine } from './types';

/** The deploys under way by machine name, so that one name deploys once at a time. */
export interface Deploys {
  /** The deploy of a name under way, if one is. */
  underWay(name: string): Promise<Machine> | undefined;
  /** A deploy of a name begins: it is the name's until it settles. */
  register(name: string, deploy: Promise<Machine>): void;
  /** The deploy of a name under way, else the one `work` begins. */
  once(name: string, work: () => Promise<Machine>): Promise<Machine>;
}

export function createDeploys(): Deploys {
  const underWay = new Map<string, Promise<Machine>>();
  const register = (name: string, deploy: Promise<Machine>) => {
    underWay.set(name, deploy);
    const settled = () => {
      if (underWay.get(name) === deploy) underWay.delete(name);
    };
    // Settling is observed here, so a failure no caller waits for is not left unhandled.
    deploy.then(settled, settled);
  };
  return {
    underWay: (name) => underWay.get(name),
    register,
    once(name, work) {
      const under = underWay.get(name);
      if (under) return under;
      const deploy = work();
      register(name, deploy);
      return deploy;
    },
  };
}
