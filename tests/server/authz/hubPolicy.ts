import { HttpTransportType, HubConnectionBuilder, LogLevel } from '@microsoft/signalr';
import { ACTORS, type ActorKind, type World } from './fixtures';

// The hub's half of the authorization matrix: which actor may Listen on which kind of channel
// (server/hub/access.ts). A hub connection needs a one-time ticket: the ticket actors use their
// own; every other actor asks GET /api/user/ticket with its credentials, and one refused there
// cannot reach the hub at all, so it listens nowhere. Listening is where the hub's groups are
// guarded: a group's events reach only those who joined it.

export interface ChannelRow {
  /** What the channel is, for the report. */
  name: string;
  channel(w: World): string;
  /** The actors whose Listen succeeds; every other one must get ActionForbidden or no hub. */
  allow: readonly ActorKind[];
}

/**
 * G's player under each credential that reaches the hub: their token, key and ticket. The console
 * page's cookies get no hub ticket (GET /api/user/ticket refuses them), so they listen nowhere.
 */
const PLAYER_CREDENTIALS: ActorKind[] = ['player', 'apiKey', 'userTicket'];

export const CHANNEL_POLICY: readonly ChannelRow[] = [
  {
    name: "G, the player's gamespace",
    channel: (w) => w.G.id,
    // Its player under any credential, the credentials held to G, and administrators.
    allow: [...PLAYER_CREDENTIALS, 'graderKey', 'launchTicket', 'admin'],
  },
  {
    name: 'W, the workspace (its authors)',
    channel: (w) => w.W,
    allow: ['editor', 'wsManager', 'admin'],
  },
  {
    name: "observe:W, the workspace's observers",
    channel: (w) => `observe:${w.W}`,
    allow: ['observerIn', 'admin'],
  },
  {
    name: "the player's own user channel",
    channel: (w) => w.ids.player,
    allow: [...PLAYER_CREDENTIALS, 'admin'],
  },
];

/** A ticket for the hub as the actor, or null when the actor cannot have one. */
async function hubTicket(w: World, actor: ActorKind): Promise<string | null> {
  const credentials = await w.credentials(actor, w.G);
  // The ticket actors' credential is itself a one-time ticket the hub takes.
  if (actor === 'userTicket' || actor === 'launchTicket') {
    return credentials.authorization!.slice('Ticket '.length);
  }
  const reply = await w.send({ url: '/api/user/ticket' }, credentials);
  if (reply.status !== 200) return null;
  return (JSON.parse(reply.body) as { ticket: string }).ticket;
}

export interface ChannelCheck {
  channel: string;
  actor: ActorKind;
  allowed: boolean;
  listened: boolean;
  /** Why the Listen failed, when it did. */
  error: string;
}

/** Every actor × every row: one hub connection per actor, a Listen per channel. */
export async function runChannelMatrix(w: World): Promise<ChannelCheck[]> {
  const checks: ChannelCheck[] = [];
  for (const actor of ACTORS) {
    const ticket = await hubTicket(w, actor);
    const connection = ticket
      ? new HubConnectionBuilder()
          .withUrl(`${w.server.url}/hub`, {
            skipNegotiation: true,
            transport: HttpTransportType.WebSockets,
            accessTokenFactory: () => ticket,
          })
          .configureLogging(LogLevel.None)
          .build()
      : null;
    await connection?.start();
    try {
      for (const row of CHANNEL_POLICY) {
        const check = { channel: row.name, actor, allowed: row.allow.includes(actor) };
        if (!connection) {
          checks.push({ ...check, listened: false, error: 'no hub ticket' });
          continue;
        }
        try {
          await connection.invoke('Listen', row.channel(w));
          checks.push({ ...check, listened: true, error: '' });
          await connection.invoke('Leave', row.channel(w));
        } catch (error) {
          checks.push({ ...check, listened: false, error: (error as Error).message });
        }
      }
    } finally {
      await connection?.stop();
    }
  }
  return checks;
}
