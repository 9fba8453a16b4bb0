import { HttpTransportType, HubConnectionBuilder, LogLevel } from '@microsoft/signalr';
import type { HubConnection } from '@microsoft/signalr';
import { runTrigger } from './run.ts';

// The in-lab agent (wire reference §4.12): inside a lab machine, it listens on its gamespace's
// hub group with the gamespace's grader key, runs the commands meant for its host (or for every
// host), and answers each with PUT /api/dispatch. It catches up on the commands sent while it was
// away, and keeps reconnecting for as long as it runs: a server restart is a pause, not an end.

export interface AgentConfig {
  /** The server, e.g. https://topoplay.example (DISPATCH_URL). */
  url: string;
  /** The gamespace's grader key (DISPATCH_APIKEY). */
  apiKey: string;
  /** The gamespace id (DISPATCH_GROUPID). */
  groupId: string;
  /** This machine's name, which targeted commands name (HOSTNAME). */
  hostname: string;
  /** How long a command may run. */
  timeoutMs: number;
  /** The longest wait between two reconnection attempts. */
  maxRetryMs: number;
  /** A command the agent sends itself every `heartbeatMs` (none when empty). */
  heartbeatTrigger: string;
  heartbeatMs: number;
  log(message: string): void;
}

export interface Dispatch {
  id: string;
  trigger: string;
  targetName?: string | null;
}

interface HubEvent {
  action: string;
  model?: Dispatch;
}

/** How far back a (re)connection looks for commands not answered yet, as the reference agent. */
const CATCH_UP_MS = 5 * 60_000;
/** Ids of commands handled, remembered so that a catch-up does not run one twice. */
const REMEMBERED = 1_000;

export function createAgent(config: AgentConfig) {
  const api = config.url.replace(/\/+$/, '') + '/api';
  const headers = { 'x-api-key': config.apiKey };
  const handled = new Set<string>();
  let connection: HubConnection | null = null;
  let stopped = false;
  let heartbeat: ReturnType<typeof setInterval> | undefined;

  async function call(method: string, path: string, body?: unknown): Promise<Response> {
    const res = await fetch(`${api}${path}`, {
      method,
      headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status}`);
    return res;
  }

  /** A fresh one-time ticket for each (re)connection (the hub takes nothing else). */
  async function ticket(): Promise<string> {
    const res = await call('GET', '/user/ticket');
    return ((await res.json()) as { ticket: string }).ticket;
  }

  const meantForMe = (d: Dispatch) =>
    !d.targetName || d.targetName.toLowerCase() === config.hostname.toLowerCase();

  async function handle(d: Dispatch): Promise<void> {
    if (!meantForMe(d) || handled.has(d.id)) return;
    handled.add(d.id);
    if (handled.size > REMEMBERED) handled.delete(handled.values().next().value!);
    const outcome = await runTrigger(d.trigger, config.timeoutMs);
    try {
      // The name the command was sent to (matched without case), or this host's for a broadcast:
      // the server keeps an answer to a targeted command in place only under the same name.
      const targetName = d.targetName || config.hostname;
      await call('PUT', '/dispatch', { id: d.id, ...outcome, targetName });
      config.log(`answered ${d.id}: ${d.trigger}`);
    } catch (err) {
      config.log(`could not answer ${d.id}: ${(err as Error).message}`);
    }
  }

  /** Joins the gamespace's group, then runs what was sent while the agent was not listening. */
  async function listen(c: HubConnection): Promise<void> {
    await c.invoke('Listen', config.groupId);
    const since = encodeURIComponent(new Date(Date.now() - CATCH_UP_MS).toISOString());
    const res = await call(
      'GET',
      `/dispatches?gs=${encodeURIComponent(config.groupId)}&since=${since}&filter=pending`,
    );
    const pending = (await res.json()) as Dispatch[];
    config.log(`listening on ${config.groupId} as ${config.hostname}`);
    for (const d of pending) void handle(d);
  }

  /** Connects (again) until it succeeds or the agent stops; waits grow up to maxRetryMs. */
  async function connect(): Promise<void> {
    for (let attempt = 0; !stopped; attempt++) {
      const c = new HubConnectionBuilder()
        // ?hostname= tells the server which machine listens (the reference's server ignores it).
        .withUrl(
          `${config.url.replace(/\/+$/, '')}/hub?hostname=${encodeURIComponent(config.hostname)}`,
          {
            skipNegotiation: true,
            transport: HttpTransportType.WebSockets,
            accessTokenFactory: ticket,
          },
        )
        .withAutomaticReconnect({
          nextRetryDelayInMilliseconds: (ctx) => retryDelay(ctx.previousRetryCount),
        })
        .configureLogging(LogLevel.None)
        .build();
      c.on('DispatchEvent', (event: HubEvent) => {
        if (event.action === 'DISPATCH.CREATE' && event.model) void handle(event.model);
      });
      c.onreconnected(() => void listen(c).catch(lost(c)));
      // Automatic reconnection gives up only if told to; start over then, as after a failure.
      c.onclose(() => {
        if (!stopped && connection === c) void connect();
      });
      try {
        await c.start();
        if (stopped) return void (await c.stop());
        connection = c;
        await listen(c);
        return;
      } catch (err) {
        config.log(`not connected: ${(err as Error).message}`);
        connection = null;
        await c.stop().catch(() => {});
        await new Promise((done) => setTimeout(done, retryDelay(attempt)));
      }
    }
  }

  /** A failure to listen once connected: drop the connection and let reconnection retry it. */
  const lost = (c: HubConnection) => (err: Error) => {
    config.log(`could not listen: ${err.message}`);
    void c.stop();
  };

  const retryDelay = (count: number) => Math.min(config.maxRetryMs, 250 * 2 ** Math.min(count, 10));

  return {
    async start(): Promise<void> {
      await connect();
      if (config.heartbeatTrigger && config.heartbeatMs > 0) {
        heartbeat = setInterval(() => {
          const beat = {
            referenceId: '_heartbeat_',
            trigger: config.heartbeatTrigger,
            targetGroup: config.groupId,
            targetName: config.hostname,
          };
          call('POST', '/dispatch', beat).catch((err: Error) => config.log(err.message));
        }, config.heartbeatMs);
      }
    },
    async stop(): Promise<void> {
      stopped = true;
      clearInterval(heartbeat);
      await connection?.stop();
    },
  };
}
