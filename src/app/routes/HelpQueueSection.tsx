import { useActorRef, useSelector } from '@xstate/react';
import { useMemo, useState } from 'react';
import { selectProfile } from '../../machines/authTokenMachine.selectors';
import { HelpQueue } from '../../views/observe/HelpQueue';
import { helpQueueLogic } from '../helpImplementations';
import { useAppServices } from '../services';

/**
 * The observers' help queue with its own actor, for any page that shows one: one workspace's
 * (`workspaceId`), or that of every workspace the viewer observes (none). Another workspace is
 * another queue.
 */
export function HelpQueueSection({ workspaceId }: { workspaceId?: string | undefined }) {
  return <Queue key={workspaceId ?? ''} workspaceId={workspaceId} />;
}

function Queue({ workspaceId }: { workspaceId: string | undefined }) {
  const { workspace, inspect, auth } = useAppServices();
  const viewerId = useSelector(auth, (s) => selectProfile(s)?.id ?? null);
  const logic = useMemo(() => helpQueueLogic(workspace), [workspace]);
  // The time the page opened; the queue's clock moves it on from there.
  const [openedAt] = useState(() => Date.now());
  const queue = useActorRef(logic, { input: { workspaceId, now: openedAt }, inspect });
  return <HelpQueue queue={queue} viewerId={viewerId} />;
}
