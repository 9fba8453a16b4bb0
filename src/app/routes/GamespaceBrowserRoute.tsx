import { useActorRef, useSelector } from '@xstate/react';
import { selectIsAdmin } from '../../machines/authTokenMachine.selectors';
import { useMemo, useState } from 'react';
import ObserveView from '../../views/observe/ObserveView';
import { GamespaceBrowser } from '../../views/observe/GamespaceBrowser';
import { DispatcherConsole } from '../../views/observe/DispatcherConsole';
import { RecordingList } from '../../views/observe/RecordingList';
import {
  dispatcherConsoleLogic,
  gamespaceBrowserLogic,
  recordingListLogic,
} from '../gamespaceBrowserImplementations';
import { useAppServices } from '../services';
import { AlertsSection } from './AlertsSection';
import { HelpQueueSection } from './HelpQueueSection';

/**
 * A gamespace's dispatcher console, alive while its tab is shown. Only admins listen on the
 * gamespace's channel: the reference refuses observers' Listen (wire reference §3), so their
 * console shows what it loaded and what Refresh brings, without retrying a refused join.
 */
function DispatcherConsoleSection({
  gamespaceId,
  listen,
}: {
  gamespaceId: string;
  listen: boolean;
}) {
  const { workspace, inspect } = useAppServices();
  const logic = useMemo(() => dispatcherConsoleLogic(workspace, { listen }), [workspace, listen]);
  const dispatcher = useActorRef(logic, { input: { gamespaceId }, inspect });
  return <DispatcherConsole dispatcher={dispatcher} />;
}

/** A gamespace's console recordings, loaded while its Recordings tab is shown. */
function RecordingListSection({ gamespaceId }: { gamespaceId: string }) {
  const { workspace, inspect } = useAppServices();
  const logic = useMemo(() => recordingListLogic(workspace), [workspace]);
  const list = useActorRef(logic, { input: { gamespaceId }, inspect });
  return <RecordingList list={list} />;
}

/** The gamespace browser's actor lives while it is in view; `fullAdminView` is the admin route's. */
export function GamespaceBrowserSection({ fullAdminView }: { fullAdminView: boolean }) {
  const { workspace, inspect, auth } = useAppServices();
  const isAdmin = useSelector(auth, selectIsAdmin);
  const logic = useMemo(() => gamespaceBrowserLogic(workspace), [workspace]);
  // The time the page opened; the browser's clock moves it on from there.
  const [openedAt] = useState(() => Date.now());
  const browser = useActorRef(logic, { input: { fullAdminView, now: openedAt }, inspect });
  return (
    <GamespaceBrowser
      browser={browser}
      dispatcher={(gamespaceId) => (
        <DispatcherConsoleSection key={gamespaceId} gamespaceId={gamespaceId} listen={isAdmin} />
      )}
      recordings={(gamespaceId) => (
        <RecordingListSection key={gamespaceId} gamespaceId={gamespaceId} />
      )}
    />
  );
}

/** /observe (observers; loaded on demand): the Observe Dashboard, its browser view-only. */
export default function ObserveRoute() {
  return (
    <ObserveView alerts={<AlertsSection />}>
      <HelpQueueSection />
      <GamespaceBrowserSection fullAdminView={false} />
    </ObserveView>
  );
}
