import type { AnyStateMachine } from 'xstate';
import { pooledSetMachine } from './core/pools/pooledSet';
import { deployMachine } from './hypervisor/deploy';
import { warmImageMachine } from './hypervisor/warmImage';

/**
 * Every state machine of the server by name. `npm run charts` draws each one to
 * docs/charts/server/<name>.md, and tests/charts.test.ts fails when a chart is missing or out of
 * date.
 */
export const serverMachines = {
  deploy: deployMachine,
  pooledSet: pooledSetMachine,
  warmImage: warmImageMachine,
} satisfies Record<string, AnyStateMachine>;
