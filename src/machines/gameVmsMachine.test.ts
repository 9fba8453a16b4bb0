import { describe, expect, it } from 'vitest';
import { createActor, createMachine, setup, type AnyActorRef } from 'xstate';
import { gameVmsMachine, type GameVm } from './gameVmsMachine';
import { selectVmControllers } from './gameVmsMachine.selectors';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';
import type { VmControllerInput } from './vmControllerMachine';

/** A controller that only keeps what it was started with. */
const stubController = setup({
  types: { input: {} as VmControllerInput, context: {} as { input: VmControllerInput } },
}).createMachine({ context: ({ input }) => ({ input }) });

const web: GameVm = { id: 'vm-1', name: 'web', isRunning: true };
const db: GameVm = { id: 'vm-2', name: 'db', isRunning: false };

function startGameVms(vms: GameVm[]) {
  const actor = createActor(
    gameVmsMachine.provide({ actors: { vmController: stubController as never } }),
    { input: { gamespaceId: 'gs1', vms } },
  ).start();
  const controllers = () => selectVmControllers(actor.getSnapshot());
  const list = (next: GameVm[]) => actor.send({ type: 'game.vmsChanged', vms: next });
  const inputOf = (ref: AnyActorRef | undefined) =>
    (ref?.getSnapshot() as { context: { input: VmControllerInput } } | undefined)?.context.input;
  return { actor, controllers, list, inputOf };
}

describe('gameVmsMachine', () => {
  it("runs a controller for each machine, as the play page's controller of it", () => {
    const g = startGameVms([web, db]);
    expect(Object.keys(g.controllers())).toEqual(['vm-1', 'vm-2']);
    expect(g.inputOf(g.controllers()['vm-1'])).toEqual({
      template: { id: 'vm-1', name: 'web', isLinked: true, workspaceId: 'gs1' },
      hideDelete: true,
      fullbleed: true,
      sessionId: 'gs1',
      // Listed running: shown running before its own load answers.
      known: { id: 'vm-1', name: 'web', status: 'deployed', state: 'running' },
    });
    expect(g.inputOf(g.controllers()['vm-2'])?.template.name).toBe('db');
    // Not running: nothing is assumed, the load says.
    expect(g.inputOf(g.controllers()['vm-2'])?.known).toBeUndefined();
  });

  it('keeps the controllers of machines still listed, stops the others and starts new ones', () => {
    const g = startGameVms([web, db]);
    const before = g.controllers();
    const third: GameVm = { id: 'vm-3', name: 'kali' };
    g.list([db, third]);
    const after = g.controllers();
    expect(Object.keys(after)).toEqual(['vm-2', 'vm-3']);
    expect(after['vm-2']).toBe(before['vm-2']);
    expect(before['vm-1']?.getSnapshot().status).toBe('stopped');
    expect(after['vm-3']?.getSnapshot().status).toBe('active');
    expect(Object.keys(g.actor.getSnapshot().children).sort()).toEqual(['vm-vm-2', 'vm-vm-3']);
  });

  it('changes nothing for a state that lists the same machines', () => {
    const g = startGameVms([web, db]);
    const before = g.controllers();
    g.list([{ ...db, isRunning: true }, { ...web }]);
    expect(g.controllers()).toBe(before);
  });

  it('stops every controller when it is stopped', () => {
    const g = startGameVms([web, db]);
    const controllers = Object.values(g.controllers());
    g.actor.stop();
    expect(controllers.map((c) => c.getSnapshot().status)).toEqual(['stopped', 'stopped']);
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(gameVmsMachine, {
        serializeState: (snapshot) => JSON.stringify(snapshot.value),
        inputs: [{ gamespaceId: 'gs1', vms: [] }],
        payloads: [{ type: 'game.vmsChanged', vms: [web] }],
      }),
    ).toEqual([]);
  });
});

describe('gameVmsMachine against an abstract model', () => {
  // The machine keeps its controllers in context, not in states: the model's states are which
  // machines the gamespace lists, and each step checks that a controller runs for exactly those
  // and that the controllers of machines listed before are the same actors.
  const model = createMachine({
    id: 'gameVmsModel',
    initial: 'none',
    states: {
      none: { on: { DEPLOYED: 'both' } },
      both: { on: { LISTED_AGAIN: 'both', ONE_REMOVED: 'one', DESTROYED: 'none' } },
      one: { on: { ONE_ADDED: 'both', DESTROYED: 'none' } },
    },
  });
  const paths = modelPaths(model);

  it('walks every transition of the model', () => {
    const { walked, transitions } = transitionCoverage(model, paths);
    expect(walked).toEqual(transitions);
  });

  it('agrees with the machine', () => {
    expect(
      modelDisagreements(model, gameVmsMachine, {
        // The machine has a single state: the controllers are its children, held in context.
        states: { none: [], both: [], one: [] },
        events: {
          DEPLOYED: 'game.vmsChanged',
          LISTED_AGAIN: 'game.vmsChanged',
          ONE_REMOVED: 'game.vmsChanged',
          ONE_ADDED: 'game.vmsChanged',
          DESTROYED: 'game.vmsChanged',
        },
      }),
    ).toEqual([]);
  });

  for (const path of paths) {
    it(path.description, async () => {
      const g = startGameVms([]);
      let previous: Record<string, AnyActorRef> = {};
      const runs = (ids: string[]) => () => {
        const controllers = g.controllers();
        expect(Object.keys(controllers)).toEqual(ids);
        for (const id of ids) {
          expect(controllers[id]?.getSnapshot().status).toBe('active');
          if (previous[id]) expect(controllers[id]).toBe(previous[id]);
        }
        for (const [id, ref] of Object.entries(previous)) {
          if (!ids.includes(id)) expect(ref.getSnapshot().status).toBe('stopped');
        }
        previous = { ...controllers };
      };
      await path.test({
        states: { none: runs([]), both: runs(['vm-1', 'vm-2']), one: runs(['vm-1']) },
        events: {
          DEPLOYED: () => g.list([web, db]),
          LISTED_AGAIN: () => g.list([{ ...web }, { ...db }]),
          ONE_REMOVED: () => g.list([web]),
          ONE_ADDED: () => g.list([web, db]),
          DESTROYED: () => g.list([]),
        },
      });
    });
  }
});
