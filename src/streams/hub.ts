import * as E from 'fp-ts/Either';
import { pipe } from 'fp-ts/function';
import * as t from 'io-ts';
import { USER_TOPO_ACTIONS } from '../domain/workspaceAccess';
import {
  distinctUntilChanged,
  EMPTY,
  filter,
  fromEventPattern,
  map,
  mergeMap,
  Observable,
  of,
  type Subscribable,
} from 'rxjs';

/**
 * Where server events come from: a @microsoft/signalr HubConnection, or the app's adapter that
 * forwards every connection's events. Handler names are matched case-insensitively by SignalR;
 * the adapter does the same.
 */
export type HubEventHandler = (...args: unknown[]) => void;
export interface HubEventSource {
  on(name: string, handler: HubEventHandler): void;
  off(name: string, handler: HubEventHandler): void;
}

/** The server's event methods (wire reference §3), PascalCase as the server emits them. */
export const HUB_EVENT_NAMES = [
  'GlobalEvent',
  'PresenceEvent',
  'TopoEvent',
  'TemplateEvent',
  'DocumentEvent',
  'VmEvent',
  'GameEvent',
  'DispatchEvent',
  // Ours: the observers' live feed on a workspace's `observe:{workspaceId}` channel.
  'ObserveEvent',
  // Ours: who has a machine's console open, on its gamespace's channel.
  'ConsoleEvent',
] as const;
export type HubEventName = (typeof HUB_EVENT_NAMES)[number];

/** A payload that failed validation; it is dropped, never passed on. */
export interface InvalidHubEvent {
  event: HubEventName;
  payload: unknown;
  reason: string;
}

export interface HubStreamOptions {
  /** Told about every dropped payload (the app counts and logs them); console.warn by default. */
  onInvalid?: (invalid: InvalidHubEvent) => void;
}

const warnInvalid = ({ event, reason }: InvalidHubEvent) =>
  console.warn(`hub: dropped an invalid ${event}: ${reason}`);

/**
 * A hub event's model decoded as the DTO `codec` reads; one that does not match is dropped, with
 * a warning naming `what` it should have been.
 */
export const decodedModel =
  <A>(codec: t.Decoder<unknown, A>, what: string) =>
  (model: unknown): Observable<A> =>
    pipe(
      codec.decode(model),
      E.match(
        () => {
          console.warn(`hub: dropped a ${what} that does not match its shape`);
          return EMPTY;
        },
        (value) => of(value),
      ),
    );

// ---------------------------------------------------------------------------------------------
// Payload codecs: `{ action, actor: { id, name }, model? }` (wire reference §3). The server writes
// camelCase JSON; models keep every field they carry (io-ts `type` does not strip), only the
// fields consumers rely on are checked.

const WireActor = t.intersection([
  t.type({ id: t.string }),
  t.partial({ name: t.union([t.string, t.null]) }),
]);
const Envelope = t.intersection([
  t.type({ action: t.string, actor: WireActor }),
  t.partial({ model: t.unknown }),
]);
type Envelope = t.TypeOf<typeof Envelope>;

/** Someone acting on the hub; `name` is '' when the server sent none. */
export interface HubActor {
  id: string;
  name: string;
}

/** A model identified by `id`; its other fields are passed on unchecked. */
const Identified = t.type({ id: t.string });
export type IdentifiedModel = t.TypeOf<typeof Identified> & Record<string, unknown>;

const SavedDocument = t.type({ text: t.string, timestamp: t.number });

/** The members of intersections and unions are not fields: their indexes are left out. */
const pathOf = (context: t.Context): string =>
  context
    .filter((_, i) => {
      const parent = context[i - 1]?.type;
      return (
        parent !== undefined &&
        !(parent instanceof t.IntersectionType) &&
        !(parent instanceof t.UnionType)
      );
    })
    .map((entry) => entry.key)
    .join('.');

const describeErrors = (errors: t.Errors): string =>
  errors
    .map((error) => pathOf(error.context) || 'payload')
    .filter((path, i, all) => all.indexOf(path) === i)
    .map((path) => `invalid ${path}`)
    .join(', ');

const decodeWith =
  <A>(codec: t.Decoder<unknown, A>, what: string) =>
  (value: unknown): E.Either<string, A> =>
    pipe(
      codec.decode(value),
      E.mapLeft((errors) => `${what}: ${describeErrors(errors)}`),
    );

const actorOf = (envelope: Envelope): HubActor => ({
  id: envelope.actor.id,
  name: envelope.actor.name ?? '',
});

const identifiedModel = (envelope: Envelope) =>
  decodeWith(Identified, 'model')(envelope.model) as E.Either<string, IdentifiedModel>;

const unknownAction = (envelope: Envelope) => E.left(`unknown action ${envelope.action}`);

/**
 * Server events of one kind as machine events: validated at this boundary, invalid payloads
 * reported and dropped. Unsubscribing detaches the handler from the source.
 */
function hubEvents$<A>(
  source: HubEventSource,
  event: HubEventName,
  toEvent: (envelope: Envelope) => E.Either<string, A>,
  { onInvalid = warnInvalid }: HubStreamOptions,
): Observable<A> {
  return fromEventPattern<unknown>(
    (handler) => source.on(event, handler),
    (handler) => source.off(event, handler),
    // The server sends one argument; any more are not ours to read.
    (...args: unknown[]) => args[0],
  ).pipe(
    mergeMap((payload) =>
      pipe(
        decodeWith(Envelope, 'envelope')(payload),
        E.chain(toEvent),
        E.match(
          (reason) => {
            onInvalid({ event, payload, reason });
            return EMPTY;
          },
          (value) => of(value),
        ),
      ),
    ),
  );
}

/** Maps a model-carrying action to the event type of a table, with the model validated. */
function identifiedEvents<T extends string>(actions: Record<string, T>) {
  return (
    envelope: Envelope,
  ): E.Either<string, { type: T; actor: HubActor; model: IdentifiedModel }> => {
    const type = actions[envelope.action];
    if (type === undefined) return unknownAction(envelope);
    return pipe(
      identifiedModel(envelope),
      E.map((model) => ({ type, actor: actorOf(envelope), model })),
    );
  };
}

// ---------------------------------------------------------------------------------------------
// Presence

// Two forms (server/hub/presence.ts). The reference's: one event per member and change, each
// arrival greeted. The batched form, which our server sends when the hub URL asks for it
// (`?presence=batched`): a list of who is present when we join a channel, then lists of who
// arrived and who left, naming the channel; nobody greets. The reference server never sends it.

const people = (actors: ReadonlyArray<t.TypeOf<typeof WireActor>>): HubActor[] =>
  actors.map((actor) => ({ id: actor.id, name: actor.name ?? '' }));

const PresentModel = t.type({ channelId: t.string, actors: t.array(WireActor) });
const ChangedModel = t.type({
  channelId: t.string,
  arrived: t.array(WireActor),
  departed: t.array(WireActor),
});

export type PresenceHubEvent =
  /** Someone started listening on a channel we listen on (PRESENCE.ARRIVED). */
  | { type: 'presence.arrived'; actor: HubActor }
  /** Someone present answered our arrival (PRESENCE.GREETED). */
  | { type: 'presence.greeted'; actor: HubActor }
  /** PRESENCE.DEPARTED, and any other presence action: spec §4 marks the actor offline. */
  | { type: 'presence.departed'; actor: HubActor; action: string }
  /** Who was on the channel when we joined it (PRESENCE.PRESENT, the batched form). */
  | { type: 'presence.listed'; channelId: string; actors: HubActor[] }
  /** Who arrived on the channel and who left it lately (PRESENCE.CHANGED, the batched form). */
  | { type: 'presence.changed'; channelId: string; arrived: HubActor[]; departed: HubActor[] };

export const presenceEvents$ = (
  source: HubEventSource,
  options: HubStreamOptions = {},
): Observable<PresenceHubEvent> =>
  hubEvents$(
    source,
    'PresenceEvent',
    (envelope): E.Either<string, PresenceHubEvent> => {
      const actor = actorOf(envelope);
      switch (envelope.action) {
        case 'PRESENCE.ARRIVED':
          return E.right({ type: 'presence.arrived', actor });
        case 'PRESENCE.GREETED':
          return E.right({ type: 'presence.greeted', actor });
        case 'PRESENCE.PRESENT':
          return pipe(
            decodeWith(PresentModel, 'model')(envelope.model),
            E.map(({ channelId, actors }) => ({
              type: 'presence.listed' as const,
              channelId,
              actors: people(actors),
            })),
          );
        case 'PRESENCE.CHANGED':
          return pipe(
            decodeWith(ChangedModel, 'model')(envelope.model),
            E.map(({ channelId, arrived, departed }) => ({
              type: 'presence.changed' as const,
              channelId,
              arrived: people(arrived),
              departed: people(departed),
            })),
          );
        default:
          return E.right({ type: 'presence.departed', actor, action: envelope.action });
      }
    },
    options,
  );

// ---------------------------------------------------------------------------------------------
// Documents

export type DocumentHubEvent =
  /** Someone saved the document through the API (DOCUMENT.SAVED; timestamp in epoch ms). */
  | { type: 'document.saved'; actor: HubActor; text: string; timestamp: number }
  /** Someone's live edits (DOCUMENT.UPDATED); the changes are the editor's own format. */
  | { type: 'document.updated'; actor: HubActor; changes: unknown }
  /** Someone's cursor or selections moved (DOCUMENT.CURSOR). */
  | { type: 'document.cursorChanged'; actor: HubActor; positions: unknown }
  /** Someone stopped editing (DOCUMENT.IDLE: the reference UI handles it; servers do not send it). */
  | { type: 'document.idled'; actor: HubActor };

export const documentEvents$ = (
  source: HubEventSource,
  options: HubStreamOptions = {},
): Observable<DocumentHubEvent> =>
  hubEvents$(
    source,
    'DocumentEvent',
    (envelope): E.Either<string, DocumentHubEvent> => {
      const actor = actorOf(envelope);
      switch (envelope.action) {
        case 'DOCUMENT.SAVED':
          return pipe(
            decodeWith(SavedDocument, 'model')(envelope.model),
            E.map(({ text, timestamp }) => ({
              type: 'document.saved' as const,
              actor,
              text,
              timestamp,
            })),
          );
        case 'DOCUMENT.UPDATED':
          return E.right({ type: 'document.updated', actor, changes: envelope.model });
        case 'DOCUMENT.CURSOR':
          return E.right({ type: 'document.cursorChanged', actor, positions: envelope.model });
        case 'DOCUMENT.IDLE':
          return E.right({ type: 'document.idled', actor });
        default:
          return unknownAction(envelope);
      }
    },
    options,
  );

// ---------------------------------------------------------------------------------------------
// Workspaces, templates, machines, gamespaces, dispatches, announcements

const TOPO_ACTIONS = {
  'TOPO.UPDATED': 'topo.updated',
  'TOPO.DELETED': 'topo.deleted',
  // Ours, sent on the user's own channel only: a workspace they gained or lost.
  [USER_TOPO_ACTIONS.added]: 'topo.added',
  [USER_TOPO_ACTIONS.removed]: 'topo.removed',
} as const;
export type TopoHubEvent = {
  type: (typeof TOPO_ACTIONS)[keyof typeof TOPO_ACTIONS];
  actor: HubActor;
  /** The workspace (on the user's channel, its summary; for topo.removed, its id and name). */
  model: IdentifiedModel;
};

export const topoEvents$ = (
  source: HubEventSource,
  options: HubStreamOptions = {},
): Observable<TopoHubEvent> =>
  hubEvents$(source, 'TopoEvent', identifiedEvents(TOPO_ACTIONS), options);

const TEMPLATE_ACTIONS = {
  'TEMPLATE.ADDED': 'template.added',
  'TEMPLATE.UPDATED': 'template.updated',
  'TEMPLATE.REMOVED': 'template.removed',
} as const;
export type TemplateHubEvent =
  | {
      type: (typeof TEMPLATE_ACTIONS)[keyof typeof TEMPLATE_ACTIONS];
      actor: HubActor;
      /** The template. */
      model: IdentifiedModel;
    }
  /** Any other action, relayed from another client's TemplateMessage as it was sent. */
  | { type: 'template.messaged'; actor: HubActor; action: string; model: unknown };

export const templateEvents$ = (
  source: HubEventSource,
  options: HubStreamOptions = {},
): Observable<TemplateHubEvent> => {
  const known = identifiedEvents(TEMPLATE_ACTIONS);
  return hubEvents$(
    source,
    'TemplateEvent',
    (envelope): E.Either<string, TemplateHubEvent> =>
      envelope.action in TEMPLATE_ACTIONS
        ? known(envelope)
        : E.right({
            type: 'template.messaged',
            actor: actorOf(envelope),
            action: envelope.action,
            model: envelope.model,
          }),
    options,
  );
};

const VM_ACTIONS = {
  'VM.START': 'vm.started',
  'VM.STOP': 'vm.stopped',
  'VM.SAVE': 'vm.saved',
  'VM.REVERT': 'vm.reverted',
  'VM.DELETE': 'vm.deleted',
  'VM.RESET': 'vm.reset',
  'VM.CHANGE': 'vm.changed',
  'VM.ANSWER': 'vm.answered',
  'VM.DEPLOY': 'vm.deployed',
  // Our server's addition: a machine's task ended (a deploy or disk copy finished).
  'VM.UPDATE': 'vm.updated',
} as const;
export type VmHubEvent = {
  type: (typeof VM_ACTIONS)[keyof typeof VM_ACTIONS];
  actor: HubActor;
  /** The machine's state; for vm.deployed, `id` is the template's id. */
  model: IdentifiedModel;
};

export const vmEvents$ = (
  source: HubEventSource,
  options: HubStreamOptions = {},
): Observable<VmHubEvent> => hubEvents$(source, 'VmEvent', identifiedEvents(VM_ACTIONS), options);

const GAME_ACTIONS = { 'GAME.UPDATE': 'game.updated', 'GAME.OVER': 'game.ended' } as const;
export type GameHubEvent = {
  type: (typeof GAME_ACTIONS)[keyof typeof GAME_ACTIONS];
  actor: HubActor;
  /** The gamespace state; only `{ id }` when it was deleted (game.ended). */
  model: IdentifiedModel;
};

export const gameEvents$ = (
  source: HubEventSource,
  options: HubStreamOptions = {},
): Observable<GameHubEvent> =>
  hubEvents$(source, 'GameEvent', identifiedEvents(GAME_ACTIONS), options);

const DISPATCH_ACTIONS = {
  'DISPATCH.CREATE': 'dispatch.created',
  'DISPATCH.UPDATE': 'dispatch.updated',
  'DISPATCH.DELETE': 'dispatch.deleted',
} as const;
export type DispatchHubEvent = {
  type: (typeof DISPATCH_ACTIONS)[keyof typeof DISPATCH_ACTIONS];
  actor: HubActor;
  /** The dispatch. */
  model: IdentifiedModel;
};

export const dispatchEvents$ = (
  source: HubEventSource,
  options: HubStreamOptions = {},
): Observable<DispatchHubEvent> =>
  hubEvents$(source, 'DispatchEvent', identifiedEvents(DISPATCH_ACTIONS), options);

// Ours: what observers of a workspace hear on its `observe:{workspaceId}` channel
// (server/core/observeFeed.ts). The model is checked by who reads it: a game event
// (src/api/gameEvents.ts) for `observe.recorded`, a help request for `observe.help`.
const OBSERVE_ACTIONS = {
  'EVENT.RECORDED': 'observe.recorded',
  'HELP.UPDATED': 'observe.help',
} as const;
export type ObserveHubEvent = {
  type: (typeof OBSERVE_ACTIONS)[keyof typeof OBSERVE_ACTIONS];
  actor: HubActor;
  model: IdentifiedModel;
};

export const observeEvents$ = (
  source: HubEventSource,
  options: HubStreamOptions = {},
): Observable<ObserveHubEvent> =>
  hubEvents$(source, 'ObserveEvent', identifiedEvents(OBSERVE_ACTIONS), options);

// Ours: who has a machine's console open (server/console/viewers.ts), on the machine's gamespace
// channel; the model is `{ id: machineId, viewers }`, checked by who reads it.
const CONSOLE_ACTIONS = { 'CONSOLE.VIEWERS': 'console.viewers' } as const;
export type ConsoleHubEvent = {
  type: (typeof CONSOLE_ACTIONS)[keyof typeof CONSOLE_ACTIONS];
  actor: HubActor;
  model: IdentifiedModel;
};

export const consoleEvents$ = (
  source: HubEventSource,
  options: HubStreamOptions = {},
): Observable<ConsoleHubEvent> =>
  hubEvents$(source, 'ConsoleEvent', identifiedEvents(CONSOLE_ACTIONS), options);

/** The hub channel of a workspace's observers (server/core/observeFeed.ts). */
export const observeChannel = (workspaceId: string) => `observe:${workspaceId}`;

/** An administrator's announcement to every connection (GLOBAL.ANNOUNCE, model = the text). */
export type GlobalHubEvent = { type: 'global.announced'; actor: HubActor; message: string };

export const globalEvents$ = (
  source: HubEventSource,
  options: HubStreamOptions = {},
): Observable<GlobalHubEvent> =>
  hubEvents$(
    source,
    'GlobalEvent',
    (envelope): E.Either<string, GlobalHubEvent> =>
      envelope.action === 'GLOBAL.ANNOUNCE'
        ? pipe(
            decodeWith(t.string, 'model')(envelope.model),
            E.map((message) => ({
              type: 'global.announced' as const,
              actor: actorOf(envelope),
              message,
            })),
          )
        : unknownAction(envelope),
    options,
  );

// ---------------------------------------------------------------------------------------------
// Connection lifecycle

/** The token states of the authToken machine (spec §4), as this stream reads them. */
export type SessionTokenState = 'unknown' | 'valid' | 'expiring' | 'invalid' | 'expired';

export type HubLifecycleEvent = { type: 'hub.startRequested' } | { type: 'hub.stopRequested' };

/**
 * When the hub connects and disconnects (spec §4): it starts when the token becomes valid and
 * stops when it becomes invalid or expired. A renewal (valid -> expiring -> valid) keeps the
 * session, so it asks for nothing: the hub authenticated with a one-time ticket at connect time
 * and needs no new token. `unknown` (before the identity client settles) asks for nothing either.
 */
export const tokenTransitions$ = (
  tokenStates: Observable<SessionTokenState>,
): Observable<HubLifecycleEvent> =>
  tokenStates.pipe(
    map((state) =>
      state === 'valid' || state === 'expiring'
        ? 'signedIn'
        : state === 'invalid' || state === 'expired'
          ? 'signedOut'
          : null,
    ),
    filter((session) => session !== null),
    distinctUntilChanged(),
    map((session) =>
      session === 'signedIn'
        ? { type: 'hub.startRequested' as const }
        : { type: 'hub.stopRequested' as const },
    ),
  );

/** The current snapshot of an actor, then each new one (actors emit only changes). */
export const snapshots$ = <S>(actor: Subscribable<S> & { getSnapshot(): S }): Observable<S> =>
  new Observable<S>((subscriber) => {
    subscriber.next(actor.getSnapshot());
    const subscription = actor.subscribe(subscriber);
    return () => subscription.unsubscribe();
  });

/**
 * `hub.disconnected` each time the connection stops being connected (and at once if it is not
 * connected when subscribed): whoever was present can no longer be seen.
 */
export const hubDisconnections$ = (
  connected: Observable<boolean>,
): Observable<{ type: 'hub.disconnected' }> =>
  connected.pipe(
    distinctUntilChanged(),
    filter((isConnected) => !isConnected),
    map(() => ({ type: 'hub.disconnected' as const })),
  );
