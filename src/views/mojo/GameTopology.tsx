import { useSelector } from '@xstate/react';
import type { GamespaceSessionActorRef } from '../../machines/gamespaceSessionMachine';
import { selectGame } from '../../machines/gamespaceSessionMachine.selectors';
import { TopologyDiagram } from '../common/TopologyDiagram';
import './gameTopology.css';

/**
 * The play page's topology (issue 29): the machines the player sees, or before the start those
 * the game will have, and the networks they share, as the editor draws them. The server sends
 * only names (GameState.topology, hidden templates left out). Open at first, folded by the player
 * when the page is long; the diagram scrolls sideways inside its box on a narrow screen.
 */
export function GameTopology({ session }: { session: GamespaceSessionActorRef }) {
  const game = useSelector(session, selectGame);
  const topology = game?.topology;
  if (!topology?.length) return null;
  return (
    <section className="tp-game-topology" aria-label="Topology">
      <details open>
        <summary>
          <h2>Topology</h2>
        </summary>
        <TopologyDiagram templates={topology} title="Machines and networks" listed />
      </details>
    </section>
  );
}
