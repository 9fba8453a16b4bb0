import * as TE from 'fp-ts/TaskEither';
import { pipe } from 'fp-ts/function';
import { fromCallback, fromEventObservable } from 'xstate';
import { fromTaskEither } from '../api/actor';
import {
  answerHelp,
  cancelHelp,
  claimHelp,
  listGamespaceHelp,
  listHelpQueue,
  listWatchedWorkspaces,
  raiseHelp,
} from '../api/help';
import {
  helpQueueMachine,
  type ChannelsChanged,
  type LoadedQueue,
} from '../machines/helpQueueMachine';
import { helpRequestMachine } from '../machines/helpRequestMachine';
import { clockTicks$ } from '../streams/clock';
import { helpUpdates$ } from '../streams/help';
import type { WorkspaceDependencies } from './workspaceImplementations';

/**
 * A player's raised hand on the play page. It listens on no channel of its own: the play page's
 * session listens on the gamespace's channel, where its help requests are told.
 */
export function helpRequestLogic(deps: WorkspaceDependencies) {
  const { http, hubEvents } = deps;
  return helpRequestMachine.provide({
    actors: {
      loadHelp: fromTaskEither(({ gamespaceId }: { gamespaceId: string }, signal) =>
        listGamespaceHelp(http)(gamespaceId, signal),
      ),
      raiseHelp: fromTaskEither(raiseHelp(http)),
      cancelHelp: fromTaskEither(cancelHelp(http)),
      helpUpdates: fromEventObservable(({ input }: { input: { gamespaceId: string } }) =>
        helpUpdates$(hubEvents, (request) => request.gamespaceId === input.gamespaceId),
      ),
    },
  });
}

/** The observers' help queue, listening on the observe channel of each workspace it shows. */
export function helpQueueLogic(deps: WorkspaceDependencies) {
  const { http, hub, hubEvents } = deps;
  return helpQueueMachine.provide({
    actors: {
      // Of every workspace, with the workspaces whose channels to listen on.
      loadQueue: fromTaskEither(({ workspaceId }: { workspaceId: string | undefined }, signal) =>
        pipe(
          TE.Do,
          TE.apS('requests', listHelpQueue(http)(workspaceId, signal)),
          TE.apS(
            'workspaceIds',
            workspaceId === undefined
              ? listWatchedWorkspaces(http)(signal)
              : TE.right<never, string[]>([]),
          ),
          TE.map((loaded): LoadedQueue => loaded),
        ),
      ),
      claimHelp: fromTaskEither(claimHelp(http)),
      answerHelp: fromTaskEither(answerHelp(http)),
      listenToChannels: fromCallback<ChannelsChanged, { channelIds: string[] }>(
        ({ input, receive }) => {
          const listened = new Set<string>();
          const listenTo = (channelIds: readonly string[]) => {
            for (const channelId of listened) {
              if (channelIds.includes(channelId)) continue;
              hub.send({ type: 'hub.leaveRequested', channelId });
              listened.delete(channelId);
            }
            for (const channelId of channelIds) {
              if (listened.has(channelId)) continue;
              hub.send({ type: 'hub.listenRequested', channelId });
              listened.add(channelId);
            }
          };
          listenTo(input.channelIds);
          receive((event) => listenTo(event.channelIds));
          return () => listenTo([]);
        },
      ),
      helpUpdates: fromEventObservable(
        ({ input }: { input: { workspaceId: string | undefined } }) =>
          helpUpdates$(
            hubEvents,
            (request) =>
              input.workspaceId === undefined || request.workspaceId === input.workspaceId,
          ),
      ),
      clock: fromEventObservable(() => clockTicks$()),
    },
  });
}
