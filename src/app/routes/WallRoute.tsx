import { useActorRef } from '@xstate/react';
import { useCallback, useEffect, useMemo, useState } from 'react';
import type { ThumbnailActorRef } from '../../machines/thumbnailMachine';
import { WallThumbnail } from '../../views/observe/WallThumbnail';
import { GameTimeline } from '../../views/observe/GameTimeline';
import WallView, {
  type AsideSlot,
  type ThumbnailSlot,
  type TimelineSlot,
} from '../../views/observe/WallView';
import { gameTimelineLogic } from '../gamespaceBrowserImplementations';
import { useAppServices } from '../services';
import { AlertsSection } from './AlertsSection';
import { HelpQueueSection } from './HelpQueueSection';
import { rememberedPins, thumbnailLogic, wallLogic } from '../wallImplementations';

type ThumbnailLogic = ReturnType<typeof thumbnailLogic>;

/**
 * One machine's picture, alive while its tile is. Its events are not recorded in the event log:
 * every tile in view asks every few seconds, which would crowd out everything else there.
 */
function ThumbnailSection({ logic, vmId }: { logic: ThumbnailLogic; vmId: string }) {
  const thumbnail: ThumbnailActorRef = useActorRef(logic, { input: { vmId } });
  return <WallThumbnail thumbnail={thumbnail} />;
}

type TimelineLogic = ReturnType<typeof gameTimelineLogic>;

/** A tile's timeline, alive while it is open: loaded once, then live on the observe channel. */
function TimelineSection({
  logic,
  gamespaceId,
  workspaceId,
}: {
  logic: TimelineLogic;
  gamespaceId: string;
  workspaceId: string;
}) {
  const { inspect } = useAppServices();
  const timeline = useActorRef(logic, { input: { gamespaceId, workspaceId }, inspect });
  // The tile shows it as long as it lives (the browser's Events tab shows and hides its own).
  useEffect(() => timeline.send({ type: 'timeline.shown' }), [timeline]);
  return <GameTimeline timeline={timeline} />;
}

/** The help queue and the alerts of the workspace the wall shows, or of every one it observes. */
const aside: AsideSlot = (workspaceId) => (
  <>
    {/* The queue heads itself ("Help requests"). */}
    <HelpQueueSection workspaceId={workspaceId ?? undefined} />
    <section aria-labelledby="tp-wall-alerts">
      <h2 id="tp-wall-alerts">Alerts</h2>
      <AlertsSection key={workspaceId ?? ''} {...(workspaceId ? { workspaceId } : {})} />
    </section>
  </>
);

/** /observe/wall (observers; loaded on demand): the instructor wall. */
export default function WallRoute() {
  const { workspace, local, inspect } = useAppServices();
  const { http } = workspace;
  const logic = useMemo(() => wallLogic({ http, local }), [http, local]);
  // The time the page opened and the pins of the last visit; the wall moves on from there.
  const [input] = useState(() => ({ now: Date.now(), pinned: rememberedPins(local) }));
  const wall = useActorRef(logic, { input, inspect });
  const pictures = useMemo(() => thumbnailLogic({ http, document, objectUrls: URL }), [http]);
  const thumbnail: ThumbnailSlot = useCallback(
    (vm) => <ThumbnailSection key={vm.id} logic={pictures} vmId={vm.id} />,
    [pictures],
  );
  const timelines = useMemo(() => gameTimelineLogic(workspace), [workspace]);
  const timeline: TimelineSlot = useCallback(
    (game) => <TimelineSection logic={timelines} {...game} />,
    [timelines],
  );
  return <WallView wall={wall} thumbnail={thumbnail} timeline={timeline} aside={aside} />;
}
