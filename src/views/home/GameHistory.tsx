import { useSelector } from '@xstate/react';
import { Link } from 'react-router';
import { localTimeOf } from '../../domain/gameEvents';
import { clockText, isUnsetDate } from '../../domain/time';
import type { MyResultsActorRef } from '../../machines/myResultsMachine';
import {
  selectAreMyResultsLoading,
  selectHasNoGamesYet,
  selectMyGames,
  selectMyResultsError,
} from '../../machines/myResultsMachine.selectors';

/** Where a running game's play page opens (src/app/router.tsx). */
const playPath = (gamespaceId: string) => `/mojo/${encodeURIComponent(gamespaceId)}`;

/** The home page's "Your games": the signed-in user's own games, running and ended. */
export function GameHistory({ history }: { history: MyResultsActorRef }) {
  const games = useSelector(history, selectMyGames);
  const error = useSelector(history, selectMyResultsError);
  const loading = useSelector(history, selectAreMyResultsLoading);
  const none = useSelector(history, selectHasNoGamesYet);

  return (
    <section className="tp-game-history" aria-labelledby="tp-game-history">
      <h2 id="tp-game-history">Your games</h2>
      {loading ? (
        <p className="tp-muted" role="status">
          Loading your games…
        </p>
      ) : error ? (
        <p className="tp-browser-error" role="alert">
          Your games could not be loaded: {error}{' '}
          <button
            type="button"
            className="p-button p-component p-button-text p-button-sm"
            onClick={() => history.send({ type: 'myResults.retryRequested' })}
          >
            Retry
          </button>
        </p>
      ) : none ? (
        <p className="tp-muted">You have not played a game yet.</p>
      ) : (
        <table className="tp-gs-sets" aria-label="Your games">
          <thead>
            <tr>
              <th scope="col">Workspace</th>
              <th scope="col">When</th>
              <th scope="col">Score</th>
              <th scope="col">Time used</th>
              <th scope="col">
                <span className="tp-visually-hidden">Status</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {games.map((g) => (
              <tr key={g.gamespaceId}>
                <th scope="row">{g.name}</th>
                <td>{localTimeOf(isUnsetDate(g.startTime) ? g.whenCreated : g.startTime)}</td>
                <td>
                  {g.score} / {g.maxPoints}
                </td>
                <td>{clockText(g.secondsUsed * 1000)}</td>
                <td>
                  {g.isRunning ? (
                    <Link to={playPath(g.gamespaceId)} aria-label={`Continue ${g.name}`}>
                      Continue
                    </Link>
                  ) : isUnsetDate(g.startTime) ? (
                    'not started'
                  ) : (
                    'ended'
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
