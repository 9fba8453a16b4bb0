import { setup, type ActorRefFrom, type SnapshotFrom } from 'xstate';

/** Widths of the left panel (spec §9). */
export const SIDEBAR_EXPANDED_PX = 400;
export const SIDEBAR_COLLAPSED_PX = 48;

export type SidebarEvent =
  /** The pointer entered the panel. */
  | { type: 'sidebar.pointerEntered' }
  /** The pointer left the panel. */
  | { type: 'sidebar.pointerLeft' }
  /**
   * The pin button was clicked (`via: 'pointer'`) or pressed with Enter/Space (`via: 'keyboard'`).
   */
  | { type: 'sidebar.pinToggleRequested'; via?: 'pointer' | 'keyboard' }
  /** Ctrl+L. */
  | { type: 'sidebar.toggleRequested' }
  /** Ctrl+O, or 'Find A Space' on the home page. */
  | { type: 'sidebar.openRequested' };

/**
 * The left panel. Hovering opens it for a peek that ends when the pointer leaves; pinning keeps
 * it open until unpinned. Keyboard requests pin it, because a keyboard user has no pointer whose
 * leaving would close it again.
 */
export const sidebarMachine = setup({
  types: {
    events: {} as SidebarEvent,
    // 'expanded': the panel shows its content at full width.
    // 'pinned': the panel stays open and the page content makes room for it.
    tags: {} as 'expanded' | 'pinned',
  },
  guards: {
    isViaPointer: ({ event }) =>
      event.type === 'sidebar.pinToggleRequested' && event.via === 'pointer',
  },
}).createMachine({
  id: 'sidebar',
  description:
    'The left panel: opens while hovered and stays open when pinned; Ctrl+L toggles it and Ctrl+O opens it pinned.',
  initial: 'collapsed',
  states: {
    collapsed: {
      on: {
        'sidebar.pointerEntered': 'expanded',
        'sidebar.pinToggleRequested': 'pinned',
        'sidebar.toggleRequested': 'pinned',
        'sidebar.openRequested': 'pinned',
      },
    },
    /** Open by hover only: overlays the page and closes when the pointer leaves. */
    expanded: {
      tags: ['expanded'],
      on: {
        'sidebar.pointerLeft': 'collapsed',
        'sidebar.pinToggleRequested': 'pinned',
        'sidebar.toggleRequested': 'collapsed',
        'sidebar.openRequested': 'pinned',
      },
    },
    pinned: {
      tags: ['expanded', 'pinned'],
      on: {
        // Unpinned with the pointer, which is still over the panel: it stays open as a hover
        // peek until the pointer leaves. Unpinned from the keyboard: nothing holds it open.
        'sidebar.pinToggleRequested': [
          { guard: 'isViaPointer', target: 'expanded' },
          { target: 'collapsed' },
        ],
        'sidebar.toggleRequested': 'collapsed',
      },
    },
  },
});

export type SidebarActorRef = ActorRefFrom<typeof sidebarMachine>;
export type SidebarSnapshot = SnapshotFrom<typeof sidebarMachine>;
