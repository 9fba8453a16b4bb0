// @vitest-environment jsdom
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it } from 'vitest';
import { createActor, fromEventObservable, SimulatedClock } from 'xstate';
import {
  PRESENCE_DEBOUNCE_MS,
  presenceMachine,
  type PresenceSourceEvent,
} from '../../machines/presenceMachine';
import { PresenceBar } from './PresenceBar';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

let root: Root | null = null;
let container: HTMLElement | null = null;

afterEach(() => {
  act(() => root?.unmount());
  container?.remove();
  root = null;
  container = null;
});

async function renderBar() {
  const clock = new SimulatedClock();
  // The hub's events are sent to the actor directly; its own source stays silent.
  const presence = createActor(
    presenceMachine.provide({
      actors: {
        hubEvents: fromEventObservable<PresenceSourceEvent, { channelId: string }>(() => ({
          subscribe: () => ({ unsubscribe: () => undefined }),
        })),
      },
      actions: { greet: () => undefined },
    }),
    { clock, input: { channelId: 'ws-1', selfId: null } },
  ).start();
  container = document.createElement('div');
  document.body.append(container);
  root = createRoot(container);
  await act(async () => root?.render(<PresenceBar presence={presence} />));
  const el = container;
  return {
    /** Server events, then the debounce. */
    receive: async (...events: PresenceSourceEvent[]) =>
      act(async () => {
        events.forEach((event) => presence.send(event));
        clock.increment(PRESENCE_DEBOUNCE_MS);
      }),
    list: () => el.querySelector<HTMLElement>('ul[aria-label="Present"]'),
    items: () =>
      [...el.querySelectorAll<HTMLElement>('ul[aria-label="Present"] > li')].map((li) => ({
        label: li.getAttribute('aria-label'),
        online: li.dataset.online,
        icon: li.querySelector('svg')?.dataset.icon,
        text: li.textContent,
      })),
  };
}

describe('PresenceBar', () => {
  it('shows nothing while nobody else is present', async () => {
    const bar = await renderBar();
    expect(bar.list()).toBeNull();
  });

  it('lists each actor with a name, a user or typing icon and connected or disconnected', async () => {
    const bar = await renderBar();
    await bar.receive(
      { type: 'presence.arrived', actor: { id: 'u-1', name: 'Creator' } },
      { type: 'presence.greeted', actor: { id: 'u-2', name: 'Administrator' } },
      { type: 'presence.greeted', actor: { id: 'u-3', name: '' } },
      { type: 'document.updated', actor: { id: 'u-3', name: '' }, changes: [] },
    );
    await bar.receive({
      type: 'presence.departed',
      actor: { id: 'u-2', name: 'Administrator' },
      action: 'PRESENCE.DEPARTED',
    });
    expect(bar.items()).toEqual([
      {
        label: 'Creator, connected',
        online: 'true',
        icon: 'user',
        text: 'Creator connected',
      },
      {
        label: 'Administrator, disconnected',
        online: 'false',
        icon: 'user',
        text: 'Administrator disconnected',
      },
      {
        label: 'anonymous, connected, editing',
        online: 'true',
        icon: 'pencil',
        text: 'anonymous connected',
      },
    ]);
  });
});
