import { enqueueActions, setup, type ActorRefFrom, type SnapshotFrom } from 'xstate';
import type { GameVm } from '../api/play';
import {
  vmControllerMachine,
  type VmControllerActorRef,
  type VmControllerInput,
} from './vmControllerMachine';

export type { GameVm };

export type GameVmsEvent =
  /** The gamespace's machines as its state now lists them (deployed, destroyed, or the same). */
  { type: 'game.vmsChanged'; vms: GameVm[] };

export interface GameVmsInput {
  gamespaceId: string;
  vms: GameVm[];
}

export interface GameVmsContext {
  gamespaceId: string;
  /**
   * One controller per machine, by the machine's id. The same object until a machine comes or
   * goes, so that a view selecting it renders again only then.
   */
  controllers: Record<string, VmControllerActorRef>;
}

/**
 * The play page's controller of a machine: it loads the machine itself (its id stands for the
 * template's), follows the gamespace's VmEvents, opens the full-bleed console of the gamespace,
 * and offers no Delete (spec §2 Gamespace play page).
 */
export const gameVmControllerInput = (gamespaceId: string, vm: GameVm): VmControllerInput => ({
  template: { id: vm.id, name: vm.name ?? '', isLinked: true, workspaceId: gamespaceId },
  hideDelete: true,
  fullbleed: true,
  sessionId: gamespaceId,
  // A machine the gamespace lists as running is shown running at once (a launch from a warm
  // pool answers with its machines running), not only once its own load answers.
  ...(vm.isRunning
    ? { known: { id: vm.id, name: vm.name, status: 'deployed', state: 'running' } }
    : {}),
});

const sameIds = (controllers: Record<string, unknown>, vms: GameVm[]): boolean => {
  const ids = Object.keys(controllers);
  return ids.length === vms.length && vms.every((vm) => vm.id in controllers);
};

/**
 * The machines of a gamespace in play, each with its controller: a controller is spawned for
 * each machine the gamespace lists and stopped when the machine is no longer listed; the others
 * keep running (a state that lists the same machines changes nothing).
 */
export const gameVmsMachine = setup({
  types: {
    input: {} as GameVmsInput,
    context: {} as GameVmsContext,
    events: {} as GameVmsEvent,
  },
  actors: {
    /** Provide it with the play page's effects. */
    vmController: vmControllerMachine,
  },
  actions: {
    syncControllers: enqueueActions(({ context, enqueue }, { vms }: { vms: GameVm[] }) => {
      if (sameIds(context.controllers, vms)) return;
      const listed = new Set(vms.map((vm) => vm.id));
      for (const [id, controller] of Object.entries(context.controllers)) {
        if (!listed.has(id)) enqueue.stopChild(controller);
      }
      enqueue.assign({
        controllers: ({ spawn }) =>
          Object.fromEntries(
            vms.map((vm) => [
              vm.id,
              context.controllers[vm.id] ??
                spawn('vmController', {
                  id: `vm-${vm.id}`,
                  input: gameVmControllerInput(context.gamespaceId, vm),
                }),
            ]),
          ),
      });
    }),
  },
}).createMachine({
  id: 'gameVms',
  description:
    'The machines of a gamespace in play: a controller for each machine its state lists, stopped once the machine is no longer listed.',
  context: ({ input, spawn }) => ({
    gamespaceId: input.gamespaceId,
    controllers: Object.fromEntries(
      input.vms.map((vm) => [
        vm.id,
        spawn('vmController', {
          id: `vm-${vm.id}`,
          input: gameVmControllerInput(input.gamespaceId, vm),
        }),
      ]),
    ),
  }),
  on: {
    'game.vmsChanged': {
      actions: { type: 'syncControllers', params: ({ event }) => ({ vms: event.vms }) },
    },
  },
});

export type GameVmsActorRef = ActorRefFrom<typeof gameVmsMachine>;
export type GameVmsSnapshot = SnapshotFrom<typeof gameVmsMachine>;
