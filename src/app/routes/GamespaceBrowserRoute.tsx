import { useActorRef } from '@xstate/react';
import { useMemo, useState } from 'react';
import ObserveView from '../../views/observe/ObserveView';
import { GamespaceBrowser } from '../../views/observe/GamespaceBrowser';
import { gamespaceBrowserLogic } from '../gamespaceBrowserImplementations';
import { useAppServices } from '../services';

/** The gamespace browser's actor lives while it is in view; `fullAdminView` is the admin route's. */
export function GamespaceBrowserSection({ fullAdminView }: { fullAdminView: boolean }) {
  const { workspace, inspect } = useAppServices();
  const logic = useMemo(() => gamespaceBrowserLogic(workspace), [workspace]);
  // The time the page opened; the browser's clock moves it on from there.
  const [openedAt] = useState(() => Date.now());
  const browser = useActorRef(logic, { input: { fullAdminView, now: openedAt }, inspect });
  return <GamespaceBrowser browser={browser} />;
}

/** /observe (observers; loaded on demand): the Observe Dashboard, its browser view-only. */
export default function ObserveRoute() {
  return (
    <ObserveView>
      <GamespaceBrowserSection fullAdminView={false} />
    </ObserveView>
  );
}
