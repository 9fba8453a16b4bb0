import { useMemo } from 'react';
import {
  describeMachine,
  describeTopology,
  machinesByNetwork,
  TOPOLOGY_LAYOUT,
  topologyOf,
  type TopologyTemplate,
} from '../../domain/topology';
import './topology.css';

/**
 * The machines and networks of a workspace drawn as a diagram (domain/topology lays it out):
 * machines and routers in a row, each network a bus, each NIC a line. Read-only; its text
 * alternative says the same in words: its label, or with `listed` a list below it that everyone
 * sees (each machine with its networks, each network with its machines).
 */
export function TopologyDiagram({
  templates,
  title = 'Topology',
  listed = false,
}: {
  templates: readonly {
    name?: string | null;
    networks?: string | readonly string[] | null;
  }[];
  title?: string;
  listed?: boolean;
}) {
  const shapes = useMemo<TopologyTemplate[]>(
    () => templates.map((t) => ({ name: t.name ?? '', networks: t.networks ?? '' })),
    [templates],
  );
  const topology = useMemo(() => topologyOf(shapes), [shapes]);
  const { boxHeight, column } = TOPOLOGY_LAYOUT;
  const boxWidth = column - 24;
  const label = listed
    ? `${title}: ${topology.machines.length} machines on ${topology.networks.length} networks, listed below.`
    : `${title}: ${describeTopology(topology)}`;
  return (
    <figure className="tp-topology">
      <figcaption>{title}</figcaption>
      {/* Wider than a phone's screen it scrolls sideways: by keyboard too, so it takes focus. */}
      <div className="tp-topology-scroll" tabIndex={0} role="group" aria-label={`${title} diagram`}>
        <svg
          role="img"
          aria-label={label}
          width={topology.width}
          height={topology.height}
          viewBox={`0 0 ${topology.width} ${topology.height}`}
        >
          {topology.networks.map((n) => (
            <g key={n.name} className="tp-topology-network" data-network={n.name}>
              <line x1={n.x1} x2={n.x2} y1={n.y} y2={n.y} />
              <text x={n.x1 - 8} y={n.y + 4} textAnchor="end">
                {n.name}
              </text>
            </g>
          ))}
          {topology.links.map((l) => (
            <g key={`${l.machine}-${l.network}`} className="tp-topology-link">
              <line x1={l.x} x2={l.x} y1={l.y1} y2={l.y2} />
              <circle cx={l.x} cy={l.y2} r={4} />
            </g>
          ))}
          {topology.machines.map((m) => (
            <g
              key={m.name}
              className={`tp-topology-machine tp-topology-${m.kind}`}
              data-machine={m.name}
            >
              <rect
                x={m.x - boxWidth / 2}
                y={m.y - boxHeight / 2}
                width={boxWidth}
                height={boxHeight}
                rx={m.kind === 'router' ? boxHeight / 2 : 6}
              />
              <text x={m.x} y={m.y + 4} textAnchor="middle">
                {m.name.length > 16 ? `${m.name.slice(0, 15)}…` : m.name}
              </text>
            </g>
          ))}
        </svg>
      </div>
      {listed && (
        <div className="tp-topology-lists">
          <ul aria-label="Machines">
            {topology.machines.map((m) => (
              <li key={m.name}>{describeMachine(m)}</li>
            ))}
          </ul>
          <ul aria-label="Networks">
            {machinesByNetwork(topology).map((n) => (
              <li key={n.network}>
                Network {n.network}: {n.machines.join(', ')}
              </li>
            ))}
          </ul>
        </div>
      )}
    </figure>
  );
}
