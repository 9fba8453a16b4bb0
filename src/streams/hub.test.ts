import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { assign, createActor, createMachine } from 'xstate';
import {
  dispatchEvents$,
  documentEvents$,
  gameEvents$,
  globalEvents$,
  hubDisconnections$,
  observeEvents$,
  presenceEvents$,
  snapshots$,
  templateEvents$,
  tokenTransitions$,
  topoEvents$,
  vmEvents$,
  type HubEventSource,
  type InvalidHubEvent,
  type SessionTokenState,
} from './hub';
import { fakeHubSource } from './testing/fakeHubSource';

const ADA = { id: 'u-ada', name: 'Ada' };

/** Subscribes `factory` to a fake source and collects what it emits and what it drops. */
function collect<A>(
  factory: (
    source: HubEventSource,
    options: { onInvalid: (i: InvalidHubEvent) => void },
  ) => {
    subscribe(next: (value: A) => void): { unsubscribe(): void };
  },
) {
  const server = fakeHubSource();
  const received: A[] = [];
  const invalid: InvalidHubEvent[] = [];
  const subscription = factory(server.source, { onInvalid: (i) => invalid.push(i) }).subscribe(
    (value) => received.push(value),
  );
  return { ...server, received, invalid, subscription };
}

const scheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));

describe('hub event streams', () => {
  it('maps presence actions to past-tense events, any other action counting as a departure', () => {
    const hub = collect(presenceEvents$);
    hub.emit('PresenceEvent', { action: 'PRESENCE.ARRIVED', actor: ADA });
    hub.emit('presenceEvent', { action: 'PRESENCE.GREETED', actor: ADA });
    hub.emit('PresenceEvent', { action: 'PRESENCE.DEPARTED', actor: ADA });
    hub.emit('PresenceEvent', { action: 'PRESENCE.SOMETHING', actor: { id: 'u-x', name: null } });
    expect(hub.received).toEqual([
      { type: 'presence.arrived', actor: ADA },
      { type: 'presence.greeted', actor: ADA },
      { type: 'presence.departed', actor: ADA, action: 'PRESENCE.DEPARTED' },
      { type: 'presence.departed', actor: { id: 'u-x', name: '' }, action: 'PRESENCE.SOMETHING' },
    ]);
    expect(hub.invalid).toEqual([]);
  });

  it("maps the batched form's lists and changes, checking their models", () => {
    const hub = collect(presenceEvents$);
    const TOPOPLAY = { id: '00000000-0000-0000-0000-000000000000', name: 'Topoplay' };
    const BOB = { id: 'u-bob', name: null };
    hub.emit('PresenceEvent', {
      action: 'PRESENCE.PRESENT',
      actor: TOPOPLAY,
      model: { channelId: 'ws-1', actors: [ADA, BOB] },
    });
    hub.emit('PresenceEvent', {
      action: 'PRESENCE.CHANGED',
      actor: TOPOPLAY,
      model: { channelId: 'ws-1', arrived: [BOB], departed: [ADA] },
    });
    hub.emit('PresenceEvent', { action: 'PRESENCE.PRESENT', actor: TOPOPLAY, model: {} });
    hub.emit('PresenceEvent', {
      action: 'PRESENCE.CHANGED',
      actor: TOPOPLAY,
      model: { channelId: 'ws-1', arrived: [{ name: 'x' }], departed: [] },
    });
    const bob = { id: 'u-bob', name: '' };
    expect(hub.received).toEqual([
      { type: 'presence.listed', channelId: 'ws-1', actors: [ADA, bob] },
      { type: 'presence.changed', channelId: 'ws-1', arrived: [bob], departed: [ADA] },
    ]);
    expect(hub.invalid.map((i) => i.reason)).toEqual([
      'model: invalid channelId, invalid actors',
      'model: invalid arrived.0.id',
    ]);
  });

  it('drops and reports invalid payloads without ending the stream', () => {
    const hub = collect(presenceEvents$);
    hub.emit('PresenceEvent', { action: 'PRESENCE.ARRIVED' });
    hub.emit('PresenceEvent', 'PRESENCE.ARRIVED');
    hub.emit('PresenceEvent', { action: 'PRESENCE.ARRIVED', actor: { id: 7 } });
    hub.emit('PresenceEvent', { action: 'PRESENCE.ARRIVED', actor: ADA });
    expect(hub.received).toEqual([{ type: 'presence.arrived', actor: ADA }]);
    expect(hub.invalid.map((i) => [i.event, i.reason])).toEqual([
      ['PresenceEvent', 'envelope: invalid actor'],
      ['PresenceEvent', 'envelope: invalid payload'],
      ['PresenceEvent', 'envelope: invalid actor.id'],
    ]);
  });

  it('reads only the first argument of an event', () => {
    const hub = collect(presenceEvents$);
    hub.emit('PresenceEvent', { action: 'PRESENCE.GREETED', actor: ADA }, 'extra');
    expect(hub.received).toEqual([{ type: 'presence.greeted', actor: ADA }]);
  });

  it('detaches its handler when unsubscribed', () => {
    const hub = collect(presenceEvents$);
    expect(hub.attached('PresenceEvent')).toBe(1);
    hub.subscription.unsubscribe();
    expect(hub.attached('PresenceEvent')).toBe(0);
    hub.emit('PresenceEvent', { action: 'PRESENCE.ARRIVED', actor: ADA });
    expect(hub.received).toEqual([]);
  });

  it('maps document events, checking the saved document', () => {
    const hub = collect(documentEvents$);
    hub.emit('DocumentEvent', {
      action: 'DOCUMENT.SAVED',
      actor: ADA,
      model: { text: '# Lab', timestamp: 1_700_000_000_000 },
    });
    hub.emit('DocumentEvent', { action: 'DOCUMENT.UPDATED', actor: ADA, model: [{ text: 'a' }] });
    hub.emit('DocumentEvent', { action: 'DOCUMENT.CURSOR', actor: ADA, model: { line: 1 } });
    hub.emit('DocumentEvent', { action: 'DOCUMENT.IDLE', actor: ADA });
    hub.emit('DocumentEvent', { action: 'DOCUMENT.SAVED', actor: ADA, model: { text: 1 } });
    hub.emit('DocumentEvent', { action: 'DOCUMENT.PRINTED', actor: ADA });
    expect(hub.received).toEqual([
      { type: 'document.saved', actor: ADA, text: '# Lab', timestamp: 1_700_000_000_000 },
      { type: 'document.updated', actor: ADA, changes: [{ text: 'a' }] },
      { type: 'document.cursorChanged', actor: ADA, positions: { line: 1 } },
      { type: 'document.idled', actor: ADA },
    ]);
    expect(hub.invalid.map((i) => i.reason)).toEqual([
      'model: invalid text, invalid timestamp',
      'unknown action DOCUMENT.PRINTED',
    ]);
  });

  it('maps workspace, machine, gamespace and dispatch events with their identified models', () => {
    const topo = collect(topoEvents$);
    topo.emit('TopoEvent', {
      action: 'TOPO.UPDATED',
      actor: ADA,
      model: { id: 'ws-1', name: 'Lab' },
    });
    topo.emit('TopoEvent', { action: 'TOPO.DELETED', actor: ADA, model: { id: 'ws-1' } });
    topo.emit('TopoEvent', { action: 'TOPO.UPDATED', actor: ADA });
    expect(topo.received).toEqual([
      { type: 'topo.updated', actor: ADA, model: { id: 'ws-1', name: 'Lab' } },
      { type: 'topo.deleted', actor: ADA, model: { id: 'ws-1' } },
    ]);
    expect(topo.invalid.map((i) => i.reason)).toEqual(['model: invalid payload']);

    const vm = collect(vmEvents$);
    for (const action of [
      'START',
      'STOP',
      'SAVE',
      'REVERT',
      'DELETE',
      'RESET',
      'CHANGE',
      'ANSWER',
      'UPDATE',
    ]) {
      vm.emit('VmEvent', { action: `VM.${action}`, actor: ADA, model: { id: 'vm-1' } });
    }
    vm.emit('VmEvent', { action: 'VM.DEPLOY', actor: ADA, model: { id: 'tm-1' } });
    vm.emit('VmEvent', { action: 'VM.EXPLODE', actor: ADA, model: { id: 'vm-1' } });
    expect(vm.received.map((e) => e.type)).toEqual([
      'vm.started',
      'vm.stopped',
      'vm.saved',
      'vm.reverted',
      'vm.deleted',
      'vm.reset',
      'vm.changed',
      'vm.answered',
      'vm.updated',
      'vm.deployed',
    ]);
    expect(vm.invalid.map((i) => i.reason)).toEqual(['unknown action VM.EXPLODE']);

    const game = collect(gameEvents$);
    game.emit('GameEvent', {
      action: 'GAME.UPDATE',
      actor: ADA,
      model: { id: 'gs-1', isActive: true },
    });
    game.emit('GameEvent', { action: 'GAME.OVER', actor: ADA, model: { id: 'gs-1' } });
    expect(game.received).toEqual([
      { type: 'game.updated', actor: ADA, model: { id: 'gs-1', isActive: true } },
      { type: 'game.ended', actor: ADA, model: { id: 'gs-1' } },
    ]);

    const dispatch = collect(dispatchEvents$);
    for (const action of ['CREATE', 'UPDATE', 'DELETE']) {
      dispatch.emit('DispatchEvent', {
        action: `DISPATCH.${action}`,
        actor: ADA,
        model: { id: 'd-1' },
      });
    }
    expect(dispatch.received.map((e) => e.type)).toEqual([
      'dispatch.created',
      'dispatch.updated',
      'dispatch.deleted',
    ]);

    const observe = collect(observeEvents$);
    const recorded = { id: 'e-1', gamespaceId: 'gs-1', kind: 'deploy' };
    observe.emit('ObserveEvent', { action: 'EVENT.RECORDED', actor: ADA, model: recorded });
    observe.emit('ObserveEvent', { action: 'HELP.UPDATED', actor: ADA, model: { id: 'h-1' } });
    observe.emit('ObserveEvent', { action: 'EVENT.RECORDED', actor: ADA, model: { kind: 'x' } });
    expect(observe.received).toEqual([
      { type: 'observe.recorded', actor: ADA, model: recorded },
      { type: 'observe.help', actor: ADA, model: { id: 'h-1' } },
    ]);
    expect(observe.invalid).toHaveLength(1);
  });

  it('maps template events and relays other template messages as they came', () => {
    const hub = collect(templateEvents$);
    hub.emit('TemplateEvent', { action: 'TEMPLATE.ADDED', actor: ADA, model: { id: 't-1' } });
    hub.emit('TemplateEvent', { action: 'TEMPLATE.UPDATED', actor: ADA, model: { id: 't-1' } });
    hub.emit('TemplateEvent', { action: 'TEMPLATE.REMOVED', actor: ADA, model: { id: 't-1' } });
    hub.emit('TemplateEvent', {
      action: 'TEMPLATE.WIGGLED',
      actor: ADA,
      model: { workspaceId: 'w' },
    });
    expect(hub.received).toEqual([
      { type: 'template.added', actor: ADA, model: { id: 't-1' } },
      { type: 'template.updated', actor: ADA, model: { id: 't-1' } },
      { type: 'template.removed', actor: ADA, model: { id: 't-1' } },
      {
        type: 'template.messaged',
        actor: ADA,
        action: 'TEMPLATE.WIGGLED',
        model: { workspaceId: 'w' },
      },
    ]);
  });

  it('maps announcements, whose model is the text', () => {
    const hub = collect(globalEvents$);
    hub.emit('GlobalEvent', { action: 'GLOBAL.ANNOUNCE', actor: ADA, model: 'Maintenance at 5' });
    hub.emit('GlobalEvent', { action: 'GLOBAL.ANNOUNCE', actor: ADA, model: { text: 'x' } });
    expect(hub.received).toEqual([
      { type: 'global.announced', actor: ADA, message: 'Maintenance at 5' },
    ]);
    expect(hub.invalid).toHaveLength(1);
  });
});

describe('tokenTransitions$', () => {
  it('starts the hub when the session begins and stops it when it ends, once per change', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const states = cold<SessionTokenState>('u-v-e-v-x-i-v-e-i', {
        u: 'unknown',
        v: 'valid',
        e: 'expiring',
        x: 'expired',
        i: 'invalid',
      });
      expectObservable(tokenTransitions$(states)).toBe('--s-----t---s---t', {
        s: { type: 'hub.startRequested' },
        t: { type: 'hub.stopRequested' },
      });
    });
  });

  it('stops the hub when the first settled state is signed out', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const states = cold<SessionTokenState>('u-i-v', { u: 'unknown', i: 'invalid', v: 'valid' });
      expectObservable(tokenTransitions$(states)).toBe('--t-s', {
        s: { type: 'hub.startRequested' },
        t: { type: 'hub.stopRequested' },
      });
    });
  });
});

describe('hubDisconnections$', () => {
  it('tells each time the connection goes down, not while it stays down', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const connected = cold('f-t-t-f-f-t-f', { t: true, f: false });
      expectObservable(hubDisconnections$(connected)).toBe('d-----d-----d', {
        d: { type: 'hub.disconnected' },
      });
    });
  });
});

describe('snapshots$', () => {
  it('emits the current snapshot first, then every change, until unsubscribed', () => {
    const counter = createActor(
      createMachine({
        types: {} as { context: { count: number } },
        context: { count: 1 },
        on: { increment: { actions: assign({ count: ({ context }) => context.count + 1 }) } },
      }),
    ).start();
    const seen: number[] = [];
    const subscription = snapshots$(counter).subscribe((snapshot) =>
      seen.push(snapshot.context.count),
    );
    counter.send({ type: 'increment' });
    subscription.unsubscribe();
    counter.send({ type: 'increment' });
    expect(seen).toEqual([1, 2]);
  });
});
