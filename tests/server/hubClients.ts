import {
  HttpTransportType,
  HubConnectionBuilder,
  LogLevel,
  type HubConnection,
} from '@microsoft/signalr';
import { vi } from 'vitest';
import WebSocket from 'ws';
import type { HubEventName } from '../../server/hub/hub';

// Clients of the hub for the tests: the real @microsoft/signalr client, and a raw `ws` client
// that speaks the JSON protocol by hand (for what the real client never sends).

export const EVENT_NAMES: HubEventName[] = [
  'GlobalEvent',
  'PresenceEvent',
  'TopoEvent',
  'TemplateEvent',
  'DocumentEvent',
  'VmEvent',
  'GameEvent',
  'DispatchEvent',
  'ObserveEvent',
  'ConsoleEvent',
];

export const RS = '\x1e';

export interface Received {
  name: string;
  // Event payloads are checked field by field.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  payload: any;
}

/** A one-time ticket from GET /api/user/ticket. */
export async function ticketFor(url: string, headers: Record<string, string>): Promise<string> {
  const res = await fetch(`${url}/api/user/ticket`, { headers });
  if (!res.ok) throw new Error(`ticket: ${res.status}`);
  return ((await res.json()) as { ticket: string }).ticket;
}

export const apiKey = (key: string) => ({ 'x-api-key': key });

export interface ClientOptions {
  /** Use the default negotiate instead of skipNegotiation + WebSockets. */
  negotiate?: boolean;
  /** Delays of withAutomaticReconnect; none means no reconnect. */
  reconnectDelays?: number[];
  /** Where tickets come from (defaults to the hub's server). */
  ticketUrl?: string;
  /** Ask for presence in the batched form, as the SPA does (`/hub?presence=batched`). */
  batchedPresence?: boolean;
}

export interface Client {
  connection: HubConnection;
  events: Received[];
  /** Resolves with the first event (in arrival order) that matches. */
  next(match: (e: Received) => boolean, timeoutMs?: number): Promise<Received>;
  stop(): Promise<void>;
}

export function record(connection: HubConnection): Pick<Client, 'events' | 'next'> {
  const events: Received[] = [];
  for (const name of EVENT_NAMES) {
    connection.on(name, (payload) => events.push({ name, payload }));
  }
  return {
    events,
    next: (match, timeoutMs = 5_000) => until(() => events.find(match), timeoutMs),
  };
}

/** A started real client whose access-token factory fetches a fresh ticket each time. */
export async function connect(
  url: string,
  headers: Record<string, string>,
  options: ClientOptions = {},
): Promise<Client> {
  let builder = new HubConnectionBuilder()
    .withUrl(`${url}/hub${options.batchedPresence ? '?presence=batched' : ''}`, {
      ...(options.negotiate
        ? {}
        : { skipNegotiation: true, transport: HttpTransportType.WebSockets }),
      accessTokenFactory: () => ticketFor(options.ticketUrl ?? url, headers),
    })
    .configureLogging(LogLevel.None);
  if (options.reconnectDelays) builder = builder.withAutomaticReconnect(options.reconnectDelays);
  const connection = builder.build();
  const recorder = record(connection);
  await connection.start();
  return { connection, ...recorder, stop: () => connection.stop() };
}

/** Resolves with what `check` returns once it returns a value. */
export function until<T>(check: () => T | undefined | false, timeoutMs = 5_000): Promise<T> {
  return vi.waitFor(
    () => {
      const value = check();
      if (value === undefined || value === false) throw new Error('timed out waiting');
      return value;
    },
    { timeout: timeoutMs, interval: 10 },
  );
}

export interface RawClient {
  socket: WebSocket;
  /** Every record received, parsed (the handshake answer included). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  messages: any[];
  closed: Promise<{ code: number }>;
  send(text: string): void;
  /** Resolves with the first record that matches. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  next(match: (m: any) => boolean, timeoutMs?: number): Promise<any>;
}

/** A raw WebSocket to /hub; resolves once open, or rejects with the HTTP status it got. */
export function rawConnect(url: string, query: string, headers: Record<string, string> = {}) {
  return new Promise<RawClient>((resolve, reject) => {
    const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/hub${query}`, { headers });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const messages: any[] = [];
    const closed = new Promise<{ code: number }>((done) =>
      socket.on('close', (code) => done({ code })),
    );
    socket.on('message', (data) => {
      for (const part of data.toString().split(RS)) if (part) messages.push(JSON.parse(part));
    });
    socket.on('unexpected-response', (_req, res) => {
      reject(new Error(`status ${res.statusCode}`));
      socket.terminate();
    });
    socket.on('error', reject);
    socket.on('open', () =>
      resolve({
        socket,
        messages,
        closed,
        send: (text) => socket.send(text),
        next: (match, timeoutMs = 5_000) => until(() => messages.find(match), timeoutMs),
      }),
    );
  });
}

export const HANDSHAKE = `{"protocol":"json","version":1}${RS}`;
