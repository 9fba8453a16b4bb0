import * as E from 'fp-ts/Either';
import type * as TE from 'fp-ts/TaskEither';
import { Observable } from 'rxjs';
import {
  createActor,
  fromCallback,
  fromEventObservable,
  fromPromise,
  type ActorOptions,
  type AnyActorLogic,
  type EventObject,
} from 'xstate';
import { fromTaskEither } from '../api/actor';
import { apiBaseUrl, createHttpClient, type ApiError, type HttpClient } from '../api/http';
import type { GuestFilePutter } from '../api/guestFiles';
import { enlistPlayer, signInWithTicket, type Enlistment } from '../api/launch';
import { changeGamespace, getGamespace, type LaunchSettings } from '../api/play';
import { consoleMachine } from '../machines/consoleMachine';
import type { GamespaceSessionEvent } from '../machines/gamespaceSessionMachine';
import { gameStatePollMachine } from '../machines/gameStatePollMachine';
import { launchSignInMachine } from '../machines/launchSignInMachine';
import { consoleImplementations, type ConsoleBrowser } from './consoleImplementations';
import { gamespaceActionLogic, gamespaceSessionLogic } from './playImplementations';
import type { WorkspaceDependencies } from './workspaceImplementations';

// The pages of the launch links (/lp, /mks, /c). Their browser is signed in by the console cookie
// alone (src/machines/launchSignInMachine.ts), so every call goes out without a bearer token, even
// when the same browser also has a session of ours: the page acts as the player the ticket was
// issued for, not as whoever else is signed in.

type Inspect = ActorOptions<AnyActorLogic>['inspect'];

/** The API client of the launch pages: the cookie (and the CSRF header) only. */
export const cookieHttpClient = (apphost: string): HttpClient =>
  createHttpClient({ baseUrl: apiBaseUrl(apphost), authorization: () => undefined });

/**
 * A call made once per key while it runs. A ticket is good once and each enlisting makes a new
 * guest: when React's strict effects restart the page's actor at once, the restarted actor shares
 * the call in flight (which its abort would not undo) rather than sending another.
 */
function once<A>(call: (key: string, signal: AbortSignal) => TE.TaskEither<ApiError, A>) {
  const running = new Map<string, Promise<A>>();
  return (key: string): Promise<A> => {
    let result = running.get(key);
    if (!result) {
      result = (async () => {
        const answer = await call(key, new AbortController().signal)();
        if (E.isLeft(answer)) throw answer.left;
        return answer.right;
      })().finally(() => running.delete(key));
      running.set(key, result);
    }
    return result;
  };
}

/** The cookie's key in `once`: no ticket is never a ticket's value (tokens are hex). */
const COOKIE_ONLY = '';

/** Signing the link in; `forgetTicket` replaces the address once the ticket is spent. */
export function launchSignInLogic(
  http: HttpClient,
  forgetTicket: (gamespaceId: string | null) => void,
) {
  const enlist = once(enlistPlayer(http));
  const signIn = once((ticket, signal) =>
    signInWithTicket(http)(ticket === COOKIE_ONLY ? null : ticket, signal),
  );
  return launchSignInMachine.provide({
    actors: {
      enlist: fromPromise<Enlistment, { code: string }>(({ input }) => enlist(input.code)),
      signIn: fromPromise<void, { ticket: string | null }>(async ({ input }) => {
        await signIn(input.ticket ?? COOKIE_ONLY);
      }),
    },
    actions: { forgetTicket: (_, { gamespaceId }) => forgetTicket(gamespaceId) },
  });
}

/**
 * The states a poll of the gamespace reads, as the play page's `game.updated` events: the poll
 * machine runs while subscribed, so the session starts and stops it as it would its hub events.
 */
export const polledGameEvents$ = (
  http: HttpClient,
  gamespaceId: string,
  inspect?: Inspect,
): Observable<GamespaceSessionEvent> =>
  new Observable((subscriber) => {
    const poll = createActor(
      gameStatePollMachine.provide({
        actors: {
          loadGamespace: fromTaskEither(({ id }: { id: string }, signal) =>
            getGamespace(http)(id, signal),
          ),
        },
      }),
      { input: { gamespaceId }, inspect },
    );
    const polled = poll.on('game.polled', ({ state }) =>
      subscriber.next({ type: 'game.updated', state }),
    );
    poll.start();
    return () => {
      polled.unsubscribe();
      poll.stop();
    };
  });

/**
 * The play page's session over the cookie. What the cookie cannot reach is replaced: the hub
 * (its ticket needs a bearer token) by polling, and the launch (POST gamespace takes no cookie)
 * by starting the one gamespace the link is for, which is what launching means on this page.
 */
export function launchSessionLogic(
  deps: WorkspaceDependencies,
  http: HttpClient,
  gamespaceId: string,
  inspect?: Inspect,
) {
  return gamespaceSessionLogic({ ...deps, http }).provide({
    actors: {
      gamespaceAction: gamespaceActionLogic(http).provide({
        actors: {
          registerGamespace: fromTaskEither((_: LaunchSettings, signal) =>
            changeGamespace(http)({ id: gamespaceId, action: 'start' }, signal),
          ),
        },
      }),
      listenToChannel: fromCallback<EventObject, { channelId: string }>(() => undefined),
      gameEvents: fromEventObservable(({ input }: { input: { gamespaceId: string } }) =>
        polledGameEvents$(http, input.gamespaceId, inspect),
      ),
    },
  });
}

/** The console page over the cookie: its sign-in renews the cookie (no bearer token to send). */
export const launchConsoleLogic = (
  http: HttpClient,
  browser: ConsoleBrowser,
  putFile: GuestFilePutter,
) => consoleMachine.provide(consoleImplementations(http, browser, putFile));
