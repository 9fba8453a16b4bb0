import type { PresenceActor, PresenceSnapshot } from './presenceMachine';

/** The actors as the view shows them (debounced); the same array until it changes. */
export const selectPresentActors = (snapshot: PresenceSnapshot): readonly PresenceActor[] =>
  snapshot.context.shown;

/** How the presence bar names an actor for assistive technology: 'Creator, connected'. */
export const presenceLabel = (actor: PresenceActor): string =>
  [
    actor.self ? `${actor.name} (you, elsewhere)` : actor.name,
    actor.online ? 'connected' : 'disconnected',
    ...(actor.editing ? ['editing'] : []),
  ].join(', ');
