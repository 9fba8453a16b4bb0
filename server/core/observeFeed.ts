import type { Repositories } from '../store/repositories';
import type { GameEvent } from './gameEvents';
import { gameEventDto } from './gameEventLog';

// The observers' live feed: what happens in a workspace's gamespaces, as it happens, for the
// people who watch them (the wall, the gamespace timeline, help requests, alerts). It goes out on
// one hub channel per workspace, `observe:{workspaceId}`, as `ObserveEvent`s; only administrators
// and observers whose scope the workspace's audience reaches may listen there (the event log's
// readers, createGameEventReader.mayRead), so a player never hears another's game, nor an alert
// about their own.
//
// A channel per workspace rather than per gamespace: a wall of 200 gamespaces of one class
// listens on one channel, not 200. Those events are few (deploys, console opens, submissions),
// so a timeline of one gamespace filters its workspace's.

export const OBSERVE_CHANNEL_PREFIX = 'observe:';

/** The hub channel of a workspace's observers. */
export const observeChannel = (workspaceId: string) => `${OBSERVE_CHANNEL_PREFIX}${workspaceId}`;

/** The workspace an observe channel is of, or null when `channelId` is no observe channel. */
export const observedWorkspace = (channelId: string): string | null =>
  channelId.startsWith(OBSERVE_CHANNEL_PREFIX)
    ? channelId.slice(OBSERVE_CHANNEL_PREFIX.length) || null
    : null;

/** What observers are told: `{ action, actor, model }` as every hub event. */
export type ObserveAction = 'EVENT.RECORDED' | 'HELP.UPDATED';

export interface ObservePublisher {
  publish(
    channel: string,
    payload: { action: ObserveAction; actor: { id: string; name: string }; model: unknown },
  ): void;
}

/** How many gamespaces' workspaces are remembered (a gamespace never changes workspace). */
const WORKSPACE_MEMORY = 4_096;

export function createObserveFeed(
  repositories: Pick<Repositories, 'gamespaces'>,
  publisher: ObservePublisher,
  log: { warn(obj: object, msg: string): void },
) {
  const workspaceOf = new Map<string, string>();

  async function workspaceOfGame(gamespaceId: string): Promise<string | null> {
    const known = workspaceOf.get(gamespaceId);
    if (known) return known;
    const g = await repositories.gamespaces.find(gamespaceId);
    if (!g?.workspaceId) return null;
    if (workspaceOf.size >= WORKSPACE_MEMORY) workspaceOf.clear();
    workspaceOf.set(gamespaceId, g.workspaceId);
    return g.workspaceId;
  }

  return {
    workspaceOfGame,

    /** Tells the workspace's observers of a recorded game event. Returns at once. */
    recorded(event: GameEvent): void {
      void workspaceOfGame(event.gamespaceId).then(
        (workspaceId) => {
          if (!workspaceId) return;
          publisher.publish(observeChannel(workspaceId), {
            action: 'EVENT.RECORDED',
            actor: { id: event.actorId ?? '', name: event.actorName ?? '' },
            model: gameEventDto(event),
          });
        },
        (err: unknown) =>
          log.warn({ err, gamespaceId: event.gamespaceId }, 'telling observers of an event failed'),
      );
    },
  };
}

export type ObserveFeed = ReturnType<typeof createObserveFeed>;
