import { useSelector } from '@xstate/react';
import type { PresenceActorRef } from '../../machines/presenceMachine';
import { presenceLabel, selectPresentActors } from '../../machines/presenceMachine.selectors';
import { Icon, piPencil, piUser } from '../common/icons';

/**
 * Who else is in the workspace (spec §2 Workspace editor): each actor's name or 'anonymous', a
 * typing or user icon, and connected/disconnected. Colors rotate in order of arrival.
 */
export function PresenceBar({ presence }: { presence: PresenceActorRef }) {
  const actors = useSelector(presence, selectPresentActors);
  if (actors.length === 0) return null;
  return (
    <ul className="tp-presence" aria-label="Present">
      {actors.map((actor) => (
        <li
          key={actor.id}
          className={`tp-presence-actor tp-presence-${actor.color}`}
          aria-label={presenceLabel(actor)}
          title={presenceLabel(actor)}
          data-online={actor.online}
          data-editing={actor.editing}
        >
          <Icon shape={actor.editing ? piPencil : piUser} />
          <span>{actor.name}</span>{' '}
          <span className="tp-presence-status">{actor.online ? 'connected' : 'disconnected'}</span>
        </li>
      ))}
    </ul>
  );
}
