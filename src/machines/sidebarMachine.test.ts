import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { sidebarMachine, type SidebarEvent } from './sidebarMachine';
import { selectIsSidebarExpanded, selectIsSidebarPinned } from './sidebarMachine.selectors';
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
