import type { AnyStateMachine } from 'xstate';
import { pooledSetMachine } from './core/pools/pooledSet';
import { deployMachine } from './hypervisor/deploy';

/**
 * Every state machine of the server by name. `npm run charts` draws each one to
 * docs/charts/server/<name>.md, and tests/charts.test.ts fails when a chart is missing or out of
 * date.
 */
export const serverMachines = {
  deploy: deployMachine,
  pooledSet: pooledSetMachine,
} satisfies Record<string, AnyStateMachine>;
