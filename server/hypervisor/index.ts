// The hypervisor drivers and their vocabulary. Which driver runs is the wiring layer's choice
// (server/plugins/driver.ts), which also gives each driver what it persists through.

export * from './types';
export { createSimDriver, SIM_CAPABILITIES, type SimDriverOptions } from './sim/simDriver';
export type { SimMachineStore } from './sim/port';
