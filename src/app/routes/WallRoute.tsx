import { useActorRef } from '@xstate/react';
import { useCallback, useMemo, useState } from 'react';
import type { ThumbnailActorRef } from '../../machines/thumbnailMachine';
import { WallThumbnail } from '../../views/observe/WallThumbnail';
import WallView, { type ThumbnailSlot } from '../../views/observe/WallView';
import { useAppServices } from '../services';
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
  return <WallView wall={wall} thumbnail={thumbnail} />;
}
