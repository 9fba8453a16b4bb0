// @vitest-environment jsdom
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createActor,
  fromCallback,
  fromEventObservable,
  fromPromise,
  type Subscribable,
} from 'xstate';
import { alertsMachine, type AlertsContext } from '../../machines/alertsMachine';
import { deferred, flush, type Deferred } from '../../machines/testing/deferred';
import { AlertList } from './AlertList';

type Alert = NonNullable<AlertsContext['alerts']>[number];

/** No hub events in these tests. */
const silent = <T,>(): Subscribable<T> => ({
  subscribe: () => ({ unsubscribe: () => undefined }),
});

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const ALERT: Alert = {
  id: 'a1',
  at: '2026-11-30T14:00:00.000Z',
  workspaceId: 'ws-1',
  kind: 'shared',
  gamespaceId: 'gs-blue',
  otherGamespaceId: 'gs-red',
  question: { sectionIndex: 1, sectionName: 'Exploit', questionIndex: 0, text: 'Root flag?' },
  submitterNames: 'Team Blue',
  ownerNames: 'Team Red',
  answer: 'flag{a1b2}',
  text: '',
};

let root: Root | null = null;
afterEach(() => {
  act(() => root?.unmount());
  root = null;
});

async function render(workspaceId: string | null) {
  const loads: Deferred<Alert[]>[] = [];
  const actor = createActor(
    alertsMachine.provide({
      actors: {
        loadAlerts: fromPromise(() => {
          const load = deferred<Alert[]>();
          loads.push(load);
          return load.promise;
        }),
        listenToChannel: fromCallback(() => undefined),
        alertEvents: fromEventObservable(() =>
          silent<{ type: 'alerts.raised'; gamespaceId: string }>(),
        ),
      },
    }),
    { input: { workspaceId } },
  ).start();
  const el = document.createElement('div');
  document.body.append(el);
  root = createRoot(el);
  await act(async () => root!.render(<AlertList alerts={actor} />));
  return { el, loads };
}

describe('AlertList', () => {
  it('says plainly who submitted whose answer to which question, with the answer', async () => {
    const view = await render('ws-1');
    expect(view.el.textContent).toContain('Loading…');
    await act(async () => {
      view.loads[0]!.resolve([ALERT, { ...ALERT, id: 'a2', kind: 'canary', ownerNames: '' }]);
      await flush();
    });
    const items = [...view.el.querySelectorAll('[aria-label="Alerts"] li')];
    expect(items.map((li) => li.querySelector('.tp-alert-text')?.textContent)).toEqual([
      'Shared answerTeam Blue submitted the answer generated for Team Red — Question 1 of Set 2 (Exploit)',
      'CanaryTeam Blue submitted a canary answer — Question 1 of Set 2 (Exploit)',
    ]);
    expect(items[0]!.textContent).toContain('flag{a1b2}');
    expect(items[0]!.textContent).toContain('Root flag?');
    expect(view.el.textContent).toContain('New alerts show as they happen.');
  });

  it('says when there are none, and that every workspace is checked on a timer', async () => {
    const view = await render(null);
    await act(async () => {
      view.loads[0]!.resolve([]);
      await flush();
    });
    expect(view.el.textContent).toContain('No alerts.');
    expect(view.el.textContent).toContain('Checked for new alerts every 15 seconds.');
  });
});
