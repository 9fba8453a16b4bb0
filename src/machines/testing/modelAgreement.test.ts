import { describe, expect, it } from 'vitest';
import { createMachine, fromPromise, setup } from 'xstate';
import { modelDisagreements, type ModelMapping } from './modelAgreement';

const machine = setup({
  actors: { load: fromPromise(async () => 'x') },
  actions: { paint: () => {} },
  guards: { hasScreen: () => true },
}).createMachine({
  id: 'door',
  initial: 'closed',
  on: { 'door.painted': { actions: 'paint' } },
  states: {
    closed: { on: { 'door.openRequested': 'opening' } },
    opening: {
      invoke: { id: 'load', src: 'load', onDone: 'open' },
      on: { 'door.closeRequested': 'closed' },
    },
    open: {
      initial: 'checking',
      states: {
        // Leaves at once: never at rest, so no model state needs to stand for it.
        checking: { always: 'still' },
        still: { always: { guard: 'hasScreen', target: 'swinging' } },
        swinging: { after: { 1000: 'still' } },
      },
      on: { 'door.closeRequested': 'closed' },
    },
  },
});

const model = createMachine({
  id: 'doorModel',
  initial: 'closed',
  states: {
    closed: { on: { OPEN: 'opening' } },
    opening: { on: { OPENED: 'open', CLOSE: 'closed' } },
    open: { on: { CLOSE: 'closed' } },
  },
});

const mapping: ModelMapping = {
  states: { closed: 'closed', opening: 'opening', open: ['open.still', 'open.swinging'] },
  events: {
    OPEN: 'door.openRequested',
    OPENED: 'xstate.done.actor.load',
    CLOSE: 'door.closeRequested',
  },
  unmodelledEvents: ['door.painted'],
};

describe('modelDisagreements', () => {
  it('finds none when the model stands for every state at rest and every outside event', () => {
    expect(modelDisagreements(model, machine, mapping)).toEqual([]);
  });

  it('counts a state as stood for through an ancestor', () => {
    expect(
      modelDisagreements(model, machine, {
        ...mapping,
        states: { ...mapping.states, open: 'open' },
      }),
    ).toEqual([]);
  });

  it('reports a state or event of the machine that the model does not account for', () => {
    expect(
      modelDisagreements(model, machine, {
        ...mapping,
        states: { ...mapping.states, open: 'open.still' },
        unmodelledEvents: [],
      }),
    ).toEqual([
      "machine state 'open.swinging' is neither modelled nor left out",
      "machine event 'door.painted' is neither modelled nor left out",
    ]);
  });

  it('reports model states and events without a counterpart, and counterparts that do not exist', () => {
    const { opening: _opening, ...states } = mapping.states;
    expect(
      modelDisagreements(model, machine, {
        states: { ...states, ajar: 'open.ajar' },
        events: { ...mapping.events, OPENED: 'xstate.done.actor.fetch', KNOCK: 'door.knocked' },
        unmodelledStates: ['locked'],
        unmodelledEvents: ['door.painted', 'door.oiled'],
      }),
    ).toEqual([
      "model state 'opening' stands for nothing",
      "'ajar' is not a state of the model",
      "model state 'ajar': the machine has no 'open.ajar'",
      "unmodelled state 'locked' is not in the machine",
      "machine state 'opening' is neither modelled nor left out",
      "model event 'OPENED': the machine ignores 'xstate.done.actor.fetch'",
      "'KNOCK' is not an event of the model",
      "model event 'KNOCK': the machine ignores 'door.knocked'",
      "unmodelled event 'door.oiled' is not handled by the machine",
    ]);
  });
});
