import { useSelector } from '@xstate/react';
import type { ReactNode } from 'react';
import type { EndReason } from '../../domain/session';
import type { GamespaceSessionActorRef } from '../../machines/gamespaceSessionMachine';
import {
  selectAttemptsText,
  selectEndedAtText,
  selectEndReason,
  selectScoreText,
  selectTimeUsedText,
} from '../../machines/gamespaceSessionMachine.selectors';

// What a player learns of their game on the play page (/mojo) and the launch page (/lp): the
// points and attempts so far, and once it is over, why.

/** Why the game is over, as the page says it under 'Game Over'. */
export const END_REASONS: Record<EndReason, string> = {
  allAnswered: 'Every question is answered: full score.',
  attemptsUsedUp: 'All attempts are used up.',
  timeUp: 'Time is up.',
  ended: 'The game was ended.',
};

/** The points scored and the attempts used, as each new state of the game has them. */
export function Tally({ session }: { session: GamespaceSessionActorRef }) {
  const score = useSelector(session, selectScoreText);
  const attempts = useSelector(session, selectAttemptsText);
  if (!score && !attempts) return null;
  return (
    <span className="tp-game-tally">
      {score && (
        <span role="status" aria-label="Score">
          {score}
        </span>
      )}
      {attempts && (
        <span role="status" aria-label="Attempts">
          {attempts}
        </span>
      )}
    </span>
  );
}

/**
 * 'Game Over', why, how long the game was played and when it ended (the countdown is gone by
 * then), and what the page offers next (`children`).
 */
export function GameOver({
  session,
  children,
}: {
  session: GamespaceSessionActorRef;
  children?: ReactNode;
}) {
  const reason = useSelector(session, selectEndReason);
  const used = useSelector(session, selectTimeUsedText);
  const ended = useSelector(session, selectEndedAtText);
  return (
    <>
      <h2 className="tp-game-over">Game Over</h2>
      {reason && <p className="tp-game-reason">{END_REASONS[reason]}</p>}
      {(used || ended) && (
        <p className="tp-game-times">
          {used && <span>{used}</span>}
          {ended && <span>{ended}</span>}
        </p>
      )}
      {children}
    </>
  );
}
