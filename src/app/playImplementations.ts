import * as E from 'fp-ts/Either';
import { pipe } from 'fp-ts/function';
import { EMPTY, filter, mergeMap, of, type Observable } from 'rxjs';
import { fromCallback, fromEventObservable, fromPromise, type EventObject } from 'xstate';
import { fromTaskEither } from '../api/actor';
import {
  changeGamespace,
  deleteGamespace,
  GameState,
  getGamespace,
  getProgress,
  gradeSection,
  inviteToGamespace,
  joinPlayer,
  registerGamespace,
} from '../api/play';
import type { HttpClient } from '../api/http';
import {
  gamespaceSessionMachine,
  STATE_REFRESH_MS,
  type GamespaceSessionEvent,
} from '../machines/gamespaceSessionMachine';
import { gamespaceActionMachine } from '../machines/gamespaceActionMachine';
import { gamespaceLaunchMachine } from '../machines/gamespaceLaunchMachine';
import type { ClockRequest } from '../machines/gamespaceSessionMachine.actors';
import { gamespacePlayMachine } from '../machines/gamespacePlayMachine';
import { gameVmsMachine } from '../machines/gameVmsMachine';
import { questionSetMachine } from '../machines/questionSetMachine';
import type { JoinedWorkspace } from '../machines/workspaceInvitationMachine';
import { workspaceInvitationMachine } from '../machines/workspaceInvitationMachine';
import { clockTicks$ } from '../streams/clock';
import { gameEvents$, type HubEventSource } from '../streams/hub';
import { gameVmLogic } from './vmControllerImplementations';
import type { WorkspaceDependencies } from './workspaceImplementations';

/** GAME.UPDATE of one gamespace, its state validated; a model that does not match is dropped. */
export const gamespaceUpdates$ = (
  source: HubEventSource,
  gamespaceId: string,
): Observable<GamespaceSessionEvent> =>
  gameEvents$(source).pipe(
    filter((event) => event.type === 'game.updated' && event.model.id === gamespaceId),
    mergeMap((event) =>
      pipe(
        GameState.decode(event.model),
        E.match(
          () => EMPTY,
          (state) => of<GamespaceSessionEvent>({ type: 'game.updated', state }),
        ),
      ),
    ),
  );

/** The play page's confirmed actions (launch, change, reset) over `http`. */
export const gamespaceActionLogic = (http: HttpClient) =>
  gamespaceActionMachine.provide({
    actors: {
      registerGamespace: fromTaskEither(registerGamespace(http)),
      changeGamespace: fromTaskEither(changeGamespace(http)),
      deleteGamespace: fromTaskEither(({ id }: { id: string }, signal) =>
        deleteGamespace(http)(id, signal),
      ),
    },
  });

/** The play page's session with its effects. */
export function gamespaceSessionLogic(deps: WorkspaceDependencies) {
  const { http, hub, hubEvents, clipboard } = deps;
  return gamespaceSessionMachine.provide({
    actors: {
      loadGamespace: fromTaskEither(({ id }: { id: string }, signal) =>
        getGamespace(http)(id, signal),
      ),
      gamespaceAction: gamespaceActionLogic(http),
      listenToChannel: fromCallback<EventObject, { channelId: string }>(({ input }) => {
        hub.send({ type: 'hub.listenRequested', channelId: input.channelId });
        return () => hub.send({ type: 'hub.leaveRequested', channelId: input.channelId });
      }),
      gameEvents: fromEventObservable(({ input }: { input: { gamespaceId: string } }) =>
        gamespaceUpdates$(hubEvents, input.gamespaceId),
      ),
      clock: fromCallback<ClockRequest, undefined>(({ sendBack, receive }) => {
        const ticks = clockTicks$(STATE_REFRESH_MS).subscribe(sendBack);
        receive(() => sendBack({ type: 'clock.ticked', now: Date.now() }));
        return () => ticks.unsubscribe();
      }),
      gamespacePlay: gamespacePlayMachine.provide({
        actors: {
          inviteToGamespace: fromTaskEither(({ id }: { id: string }, signal) =>
            inviteToGamespace(http)(id, signal),
          ),
          copyToClipboard: fromPromise<void, { text: string }>(({ input }) =>
            clipboard.writeText(input.text),
          ),
          questionSet: questionSetMachine.provide({
            actors: {
              loadProgress: fromTaskEither(({ gamespaceId }: { gamespaceId: string }, signal) =>
                getProgress(http)(gamespaceId, signal),
              ),
              gradeSection: fromTaskEither(gradeSection(http)),
            },
          }),
          gameVms: gameVmsMachine.provide({ actors: { vmController: gameVmLogic(deps) } }),
        },
      }),
    },
  });
}

/** The Play tab's launcher: POST gamespace, then the new gamespace's play page. */
export function gamespaceLaunchLogic(deps: WorkspaceDependencies) {
  const { http, navigate } = deps;
  return gamespaceLaunchMachine.provide({
    actors: { registerGamespace: fromTaskEither(registerGamespace(http)) },
    actions: {
      openGamespace: (_, { id, slug }) =>
        navigate(`/mojo/${encodeURIComponent(id)}/${encodeURIComponent(slug)}`),
    },
  });
}

/** Redeeming a gamespace invitation: POST player/{code}, then the play page. */
export function gamespaceInvitationLogic(
  deps: WorkspaceDependencies,
  target: { id: string; slug: string },
) {
  const { http, navigate } = deps;
  return workspaceInvitationMachine.provide({
    actors: {
      redeemInvitation: fromPromise<JoinedWorkspace, { code: string }>(
        async ({ input, signal }) => {
          const result = await joinPlayer(http)(input.code, signal)();
          if (E.isLeft(result)) throw result.left;
          return { id: target.id };
        },
      ),
    },
    actions: {
      navigateToWorkspace: () =>
        navigate(`/mojo/${encodeURIComponent(target.id)}/${encodeURIComponent(target.slug)}`),
      // The joined game is one more of the user's: the sidebar's lists refresh.
      announceWorkspacesChanged: deps.announceWorkspacesChanged,
    },
  });
}
