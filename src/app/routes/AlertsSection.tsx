import { useActorRef } from '@xstate/react';
import { useMemo } from 'react';
import { AlertList } from '../../views/observe/AlertList';
import { alertsLogic } from '../alertsImplementations';
import { useAppServices } from '../services';

/**
 * The answer-sharing alerts of one workspace (live on its observe channel), or with no
 * `workspaceId` of every workspace the viewer observes; its actor lives while it is in view.
 */
export function AlertsSection({ workspaceId }: { workspaceId?: string }) {
  const { workspace, inspect } = useAppServices();
  const logic = useMemo(() => alertsLogic(workspace), [workspace]);
  const alerts = useActorRef(logic, { input: { workspaceId: workspaceId ?? null }, inspect });
  return <AlertList alerts={alerts} />;
}
