import { StoppedPage } from '../common/StoppedPage';
import { useTitle } from '../common/useTitle';

/**
 * A replay's address opened by someone who may not watch recordings (a player): said plainly,
 * the same whether or not the recording exists, and nothing of it is asked for.
 */
export function ReplayDenied() {
  useTitle('Replay not allowed');
  return (
    <StoppedPage
      title="You may not watch this recording"
      detail="Replays of console sessions are for observers and administrators."
    />
  );
}
