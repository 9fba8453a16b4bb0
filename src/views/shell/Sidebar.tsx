import { useSelector } from '@xstate/react';
import type { SidebarActorRef } from '../../machines/sidebarMachine';
import {
  selectIsSidebarExpanded,
  selectIsSidebarPinned,
} from '../../machines/sidebarMachine.selectors';
import type { WorkspaceBrowserActorRef } from '../../machines/workspaceBrowserMachine';
import { WorkspaceBrowser } from './WorkspaceBrowser';
import { Icon, piBars, piThumbtack } from '../common/icons';
import { useHydrated } from '../common/useHydrated';

/**
 * The left panel that hosts the workspace browser. It opens while hovered and stays open when
 * pinned with its button (a click, or Enter/Space on the focused button).
 */
export function Sidebar({
  sidebar,
  browser,
  uploadEnabled,
}: {
  sidebar: SidebarActorRef;
  browser: WorkspaceBrowserActorRef;
  uploadEnabled: boolean;
}) {
  const expanded = useSelector(sidebar, selectIsSidebarExpanded);
  const pinned = useSelector(sidebar, selectIsSidebarPinned);
  const hydrated = useHydrated();

  return (
    <div className={pinned ? 'tp-sidebar-slot tp-sidebar-slot-pinned' : 'tp-sidebar-slot'}>
      <nav
        className="tp-sidebar"
        aria-label="Workspace browser"
        data-state={expanded ? 'expanded' : 'collapsed'}
        data-pinned={pinned ? 'true' : 'false'}
        onMouseEnter={() => sidebar.send({ type: 'sidebar.pointerEntered' })}
        onMouseLeave={() => sidebar.send({ type: 'sidebar.pointerLeft' })}
      >
        <div className="tp-sidebar-tools">
          <button
            type="button"
            className="tp-icon-button"
            aria-label="Pin sidebar"
            aria-pressed={pinned}
            disabled={!hydrated}
            title={pinned ? 'Unpin the left panel (Ctrl+L)' : 'Pin the left panel open (Ctrl+L)'}
            onClick={(event) =>
              sidebar.send({
                type: 'sidebar.pinToggleRequested',
                // A click made with Enter or Space reports no pointer clicks (detail 0).
                via: event.detail === 0 ? 'keyboard' : 'pointer',
              })
            }
          >
            <Icon shape={pinned ? piThumbtack : piBars} />
          </button>
        </div>
        {expanded && <WorkspaceBrowser browser={browser} uploadEnabled={uploadEnabled} />}
      </nav>
    </div>
  );
}
