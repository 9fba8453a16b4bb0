import type { FastifyBaseLogger } from 'fastify';
import { DomainError } from '../core/errors';
import type { ChannelAccess } from './access';
import type { Channels } from './channels';
import type { HubDocuments } from './types';
import type { Connection, Outcome } from './transport';

// The hub methods clients invoke (wire reference §3): Listen, Leave, Greet, Edited,
// CursorChanged, TemplateMessage. It binds and checks their arguments, decides who may do what
// (listen on a channel, speak on one it listens on), and turns failures into the completion's
// error text as the reference words them.
// It must not write to a connection or read its socket (the transport, server/hub/transport.ts,
// writes the completion), nor keep group membership itself (server/hub/channels.ts does).

export interface MethodsOptions {
  channels: Pick<Channels, 'join' | 'leave' | 'greet' | 'toGroupExcept'>;
  canListen: ChannelAccess;
  documents?: HubDocuments;
  log: FastifyBaseLogger;
}

/** Runs one invocation of a hub method for a connection; never rejects. */
export type Invoke = (conn: Connection, target: string, args: unknown[]) => Promise<Outcome>;

/** An error the client sees as the completion's `error` text. */
class HubError extends Error {}

const bindingError = (target: string) =>
  new HubError(
    `Failed to invoke '${target}' due to an error on the server. InvalidDataException: Error binding arguments. Make sure that the types of the provided values match the types of the hub method being invoked.`,
  );

export function createMethods(options: MethodsOptions): Invoke {
  const { channels, canListen, documents, log } = options;

  function requireJoined(conn: Connection, room: string) {
    if (!conn.groups.has(room)) throw new HubError('ActionForbidden');
  }

  const channelOf = (target: string, value: unknown): string => {
    if (typeof value !== 'string' || !value || value.length > 256) throw bindingError(target);
    return value;
  };

  type Method = (conn: Connection, args: unknown[], target: string) => Promise<void> | void;
  const method = (arity: number, run: Method) => ({ arity, run });

  // Client methods by lower-cased name: SignalR matches them case-insensitively.
  const methods: Record<string, { arity: number; run: Method }> = {
    listen: method(1, async (conn, [channel], name) => {
      const room = channelOf(name, channel);
      if (!(await canListen(conn.actor, room))) throw new HubError('ActionForbidden');
      await channels.join(conn, room);
    }),
    leave: method(1, async (conn, [channel], name) => {
      const room = channelOf(name, channel);
      requireJoined(conn, room);
      await channels.leave(conn, room);
    }),
    greet: method(1, (conn, [channel], name) => {
      const room = channelOf(name, channel);
      requireJoined(conn, room);
      channels.greet(conn, room);
    }),
    edited: method(2, async (conn, [channel, changes], name) => {
      const room = channelOf(name, channel);
      requireJoined(conn, room);
      // Stored first, so that the completion tells the client its update is in the log, and
      // an update the log refuses is not relayed either.
      await documents?.edited(room, changes, conn.actor);
      channels
        .toGroupExcept(room, conn.id)
        .send('DocumentEvent', { action: 'DOCUMENT.UPDATED', actor: conn.user, model: changes });
    }),
    cursorchanged: method(2, (conn, [channel, positions], name) => {
      const room = channelOf(name, channel);
      requireJoined(conn, room);
      channels
        .toGroupExcept(room, conn.id)
        .send('DocumentEvent', { action: 'DOCUMENT.CURSOR', actor: conn.user, model: positions });
    }),
    templatemessage: method(2, (conn, [action, model], name) => {
      if (typeof action !== 'string' || !model || typeof model !== 'object') {
        throw bindingError(name);
      }
      const room = channelOf(name, (model as { workspaceId?: unknown }).workspaceId);
      // Only a connection listening on the workspace may speak in it.
      requireJoined(conn, room);
      channels
        .toGroupExcept(room, conn.id)
        .send('TemplateEvent', { action, actor: conn.user, model });
    }),
  };

  return async function invoke(conn, target, args) {
    try {
      const key = target.toLowerCase();
      const found = Object.hasOwn(methods, key) ? methods[key] : undefined;
      if (!found) {
        throw new HubError(
          `Failed to invoke '${target}' due to an error on the server. HubException: Method does not exist.`,
        );
      }
      if (args.length !== found.arity) {
        throw new HubError(
          `Failed to invoke '${target}' due to an error on the server. InvalidDataException: Invocation provides ${args.length} argument(s) but target expects ${found.arity}.`,
        );
      }
      await found.run(conn, args, target);
      return {};
    } catch (error) {
      if (error instanceof HubError || error instanceof DomainError) {
        return { error: error.message };
      }
      log.error({ err: error, target, connectionId: conn.id }, 'hub method failed');
      return { error: `An unexpected error occurred invoking '${target}' on the server.` };
    }
  };
}
