import type { GameVmsSnapshot } from './gameVmsMachine';
import type { VmControllerActorRef } from './vmControllerMachine';

/** Each machine's controller by the machine's id: the same object until a machine comes or goes. */
export const selectVmControllers = (
  snapshot: GameVmsSnapshot,
): Readonly<Record<string, VmControllerActorRef>> => snapshot.context.controllers;
