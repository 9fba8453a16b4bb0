// The ASP.NET Core SignalR JSON hub protocol, version 1 (wire reference §3): every message is a
// JSON object terminated by the record separator 0x1E; several may share one WebSocket frame.

export const RECORD_SEPARATOR = '\x1e';

export const MessageType = {
  Invocation: 1,
  StreamItem: 2,
  Completion: 3,
  StreamInvocation: 4,
  CancelInvocation: 5,
  Ping: 6,
  Close: 7,
} as const;

/** A message from a client after the handshake; only the fields the hub reads. */
export type ClientMessage =
  | {
      type: typeof MessageType.Invocation;
      invocationId?: string;
      target: string;
      arguments: unknown[];
      streamIds?: unknown[];
    }
  | {
      type: typeof MessageType.StreamInvocation | typeof MessageType.CancelInvocation;
      invocationId?: string;
    }
  | { type: typeof MessageType.Ping | typeof MessageType.Close | typeof MessageType.StreamItem };

/** A malformed message: the connection is closed with this text in the close message. */
export class ProtocolError extends Error {}

const frame = (message: object) => JSON.stringify(message) + RECORD_SEPARATOR;

export const HANDSHAKE_OK = Buffer.from(`{}${RECORD_SEPARATOR}`);
export const PING = Buffer.from(frame({ type: MessageType.Ping }));

/** The client may reconnect (server shutdown); the stock client then runs its retry policy. */
export const CLOSE_RECONNECT = Buffer.from(
  frame({ type: MessageType.Close, allowReconnect: true }),
);

export const handshakeError = (error: string) => frame({ error });
export const closeWithError = (error: string) => frame({ type: MessageType.Close, error });

export const invocationFrame = (target: string, payload: unknown) =>
  frame({ type: MessageType.Invocation, target, arguments: [payload] });

export function completionFrame(
  invocationId: string,
  outcome: { result?: unknown; error?: string },
): string {
  if (outcome.error !== undefined) {
    return frame({ type: MessageType.Completion, invocationId, error: outcome.error });
  }
  return outcome.result === undefined
    ? frame({ type: MessageType.Completion, invocationId })
    : frame({ type: MessageType.Completion, invocationId, result: outcome.result });
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  !!v && typeof v === 'object' && !Array.isArray(v);

function parseJson(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ProtocolError('InvalidDataException: Error reading JSON.');
  }
  if (!isRecord(value)) throw new ProtocolError('InvalidDataException: Expected a JSON object.');
  return value;
}

/** The handshake request; an unsupported protocol or version is an error for the client. */
export function parseHandshake(text: string): { error?: string } {
  let request: Record<string, unknown>;
  try {
    request = parseJson(text);
  } catch {
    return { error: 'An unexpected error occurred during connection handshake.' };
  }
  const { protocol, version } = request;
  if (typeof protocol !== 'string') {
    return { error: "Missing required property 'protocol'." };
  }
  if (protocol !== 'json') return { error: `The protocol '${protocol}' is not supported.` };
  if (version !== 1) {
    return {
      error: `The server does not support version ${String(version)} of the 'json' protocol.`,
    };
  }
  return {};
}

export function parseMessage(text: string): ClientMessage {
  const message = parseJson(text);
  const { type } = message;
  if (typeof type !== 'number') throw new ProtocolError("Missing required property 'type'.");
  const invocationId = message.invocationId;
  if (invocationId !== undefined && invocationId !== null && typeof invocationId !== 'string') {
    throw new ProtocolError("Expected 'invocationId' to be of type String.");
  }
  const id = typeof invocationId === 'string' ? invocationId : undefined;
  switch (type) {
    case MessageType.Invocation: {
      const { target, arguments: args, streamIds } = message;
      if (typeof target !== 'string')
        throw new ProtocolError("Missing required property 'target'.");
      if (!Array.isArray(args)) throw new ProtocolError("Missing required property 'arguments'.");
      return {
        type,
        target,
        arguments: args,
        ...(id !== undefined ? { invocationId: id } : {}),
        ...(Array.isArray(streamIds) ? { streamIds } : {}),
      };
    }
    case MessageType.StreamInvocation:
    case MessageType.CancelInvocation:
      return { type, ...(id !== undefined ? { invocationId: id } : {}) };
    case MessageType.StreamItem:
    case MessageType.Ping:
    case MessageType.Close:
      return { type };
    default:
      throw new ProtocolError(`Unknown message type '${type}'.`);
  }
}
