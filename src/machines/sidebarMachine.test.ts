import { describe, expect, it } from 'vitest';
import { createActor, createMachine } from 'xstate';
import { sidebarMachine, type SidebarEvent } from './sidebarMachine';
import { selectIsSidebarExpanded, selectIsSidebarPinned } from './sidebarMachine.selectors';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';

function startSidebar(...events: SidebarEvent[]) {
  const actor = createActor(sidebarMachine).start();
  events.forEach((event) => actor.send(event));
  const view = () => {
    const snapshot = actor.getSnapshot();
    return {
      state: snapshot.value,
      expanded: selectIsSidebarExpanded(snapshot),
      pinned: selectIsSidebarPinned(snapshot),
    };
  };
  return { actor, view };
}

const entered: SidebarEvent = { type: 'sidebar.pointerEntered' };
const left: SidebarEvent = { type: 'sidebar.pointerLeft' };
const clickedPin: SidebarEvent = { type: 'sidebar.pinToggleRequested', via: 'pointer' };
const pressedPin: SidebarEvent = { type: 'sidebar.pinToggleRequested', via: 'keyboard' };
const toggle: SidebarEvent = { type: 'sidebar.toggleRequested' };
const open: SidebarEvent = { type: 'sidebar.openRequested' };

describe('sidebarMachine', () => {
  it('starts collapsed and unpinned', () => {
    expect(startSidebar().view()).toEqual({ state: 'collapsed', expanded: false, pinned: false });
  });

  it('expands while hovered and collapses when the pointer leaves', () => {
    const { actor, view } = startSidebar(entered);
    expect(view()).toEqual({ state: 'expanded', expanded: true, pinned: false });
    actor.send(left);
    expect(view().state).toBe('collapsed');
  });

  it('stays open when the pointer leaves a pinned panel', () => {
    const { actor, view } = startSidebar(entered, clickedPin);
    expect(view()).toEqual({ state: 'pinned', expanded: true, pinned: true });
    actor.send(left);
    expect(view().state).toBe('pinned');
  });

  it('pins from collapsed with Enter/Space on the pin button', () => {
    expect(startSidebar(pressedPin).view().state).toBe('pinned');
  });

  it('unpinned by a click, stays open under the pointer until it leaves', () => {
    const { actor, view } = startSidebar(entered, clickedPin, clickedPin);
    expect(view()).toEqual({ state: 'expanded', expanded: true, pinned: false });
    actor.send(left);
    expect(view().state).toBe('collapsed');
  });

  it('unpinned from the keyboard, collapses at once', () => {
    const { view } = startSidebar(pressedPin, pressedPin);
    expect(view().state).toBe('collapsed');
  });

  it('toggles with Ctrl+L: a collapsed panel opens pinned, an open one collapses', () => {
    const { actor, view } = startSidebar(toggle);
    expect(view().state).toBe('pinned');
    actor.send(toggle);
    expect(view().state).toBe('collapsed');
    actor.send(entered);
    actor.send(toggle);
    expect(view().state).toBe('collapsed');
  });

  it('opens and pins with Ctrl+O whatever its state, and stays pinned', () => {
    expect(startSidebar(open).view().state).toBe('pinned');
    expect(startSidebar(entered, open).view().state).toBe('pinned');
    expect(startSidebar(open, open).view().state).toBe('pinned');
  });

  it('ignores hover changes that do not apply', () => {
    const { view } = startSidebar(left, entered, entered);
    expect(view().state).toBe('expanded');
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(sidebarMachine, { serializeState: (s) => JSON.stringify(s.value) }),
    ).toEqual([]);
  });
});

/**
 * Model-based test: the panel as spec §2 and §9 describe it, every input in every state (those
 * that do not apply are self-loops), driving the real actor and checking what the view reads.
 */
describe('sidebarMachine against its model', () => {
  type ModelEvent =
    | { type: 'ENTERED' }
    | { type: 'LEFT' }
    | { type: 'PIN_CLICKED' }
    | { type: 'PIN_PRESSED' }
    | { type: 'TOGGLED' }
    | { type: 'OPENED' };

  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'sidebarModel',
    initial: 'collapsed',
    states: {
      collapsed: {
        on: {
          ENTERED: 'expanded',
          LEFT: 'collapsed',
          PIN_CLICKED: 'pinned',
          PIN_PRESSED: 'pinned',
          TOGGLED: 'pinned',
          OPENED: 'pinned',
        },
      },
      expanded: {
        on: {
          ENTERED: 'expanded',
          LEFT: 'collapsed',
          PIN_CLICKED: 'pinned',
          PIN_PRESSED: 'pinned',
          TOGGLED: 'collapsed',
          OPENED: 'pinned',
        },
      },
      pinned: {
        on: {
          ENTERED: 'pinned',
          LEFT: 'pinned',
          PIN_CLICKED: 'expanded',
          PIN_PRESSED: 'collapsed',
          TOGGLED: 'collapsed',
          OPENED: 'pinned',
        },
      },
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, sidebarMachine, {
        states: { collapsed: 'collapsed', expanded: 'expanded', pinned: 'pinned' },
        events: {
          ENTERED: 'sidebar.pointerEntered',
          LEFT: 'sidebar.pointerLeft',
          PIN_CLICKED: 'sidebar.pinToggleRequested',
          PIN_PRESSED: 'sidebar.pinToggleRequested',
          TOGGLED: 'sidebar.toggleRequested',
          OPENED: 'sidebar.openRequested',
        },
      }),
    ).toEqual([]);
  });

  const paths = modelPaths(model);

  it('walks every transition of the model', () => {
    const { walked, transitions } = transitionCoverage(model, paths);
    expect(walked).toEqual(transitions);
  });

  for (const path of paths) {
    it(path.description, async () => {
      const { actor, view } = startSidebar();
      const expectPanel = (state: string, expanded: boolean, pinned: boolean) => () =>
        expect(view()).toEqual({ state, expanded, pinned });
      await path.test({
        states: {
          collapsed: expectPanel('collapsed', false, false),
          expanded: expectPanel('expanded', true, false),
          pinned: expectPanel('pinned', true, true),
        },
        events: {
          ENTERED: () => actor.send(entered),
          LEFT: () => actor.send(left),
          PIN_CLICKED: () => actor.send(clickedPin),
          PIN_PRESSED: () => actor.send(pressedPin),
          TOGGLED: () => actor.send(toggle),
          OPENED: () => actor.send(open),
        },
      });
    });
  }
});
