import { fromCallback, fromEventObservable, type EventObject } from 'xstate';
import { fromTaskEither } from '../api/actor';
import { listAlerts } from '../api/alerts';
import { alertsMachine } from '../machines/alertsMachine';
import { alertsRaised$ } from '../streams/alerts';
import { observeChannel } from '../streams/hub';
import type { WorkspaceDependencies } from './workspaceImplementations';

/**
 * The observers' alert list with its effects: GET alerts, and for one workspace its observe
 * channel (`observe:{workspaceId}`), joined while the list lives, whose `alert` events reload it.
 */
export function alertsLogic(deps: WorkspaceDependencies) {
  const { http, hub, hubEvents } = deps;
  return alertsMachine.provide({
    actors: {
      loadAlerts: fromTaskEither(({ workspaceId }: { workspaceId: string | null }, signal) =>
        listAlerts(http)(workspaceId, signal),
      ),
      listenToChannel: fromCallback<EventObject, { workspaceId: string }>(({ input }) => {
        const channelId = observeChannel(input.workspaceId);
        hub.send({ type: 'hub.listenRequested', channelId });
        return () => hub.send({ type: 'hub.leaveRequested', channelId });
      }),
      alertEvents: fromEventObservable(() => alertsRaised$(hubEvents)),
    },
  });
}
