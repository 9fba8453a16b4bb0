// @vitest-environment jsdom
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it } from 'vitest';
import { createActor, createMachine } from 'xstate';
import { gamespaceLaunchMachine } from '../../../machines/gamespaceLaunchMachine';
import PlaySection from './PlaySection';
import { PlayLaunchContext } from './playLaunchContext';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

let root: Root | null = null;
let container: HTMLElement | null = null;

afterEach(() => {
  act(() => root?.unmount());
  container?.remove();
  root = null;
  container = null;
});

/** The Play tab of a loaded workspace of `durationMinutes`, launched by an account of `cap`. */
async function renderTab(durationMinutes: number, accountMaxMinutes = 0) {
  // The tab reads the editor's header and workspace only.
  const editor = createActor(
    createMachine({
      context: {
        header: { id: 'ws1', name: 'Lab' },
        workspace: { id: 'ws1', name: 'Lab', durationMinutes },
      },
    }),
  ).start();
  const launcher = createActor(gamespaceLaunchMachine, {
    input: { workspaceId: 'ws1', accountMaxMinutes },
  }).start();
  container = document.createElement('div');
  document.body.append(container);
  root = createRoot(container);
  await act(async () =>
    root?.render(
      <PlayLaunchContext.Provider value={launcher}>
        <PlaySection editor={editor as never} />
      </PlayLaunchContext.Provider>,
    ),
  );
  const note = () => container?.querySelector('#tp-launch-minutes-cap')?.textContent ?? '';
  const setMinutes = (value: number) =>
    act(async () => launcher.send({ type: 'launch.numberChanged', option: 'maxMinutes', value }));
  return { note, setMinutes };
}

describe('PlaySection', () => {
  it('explains Variant and Start beside them', async () => {
    await renderTab(30);
    const description = (input: HTMLInputElement | null | undefined) =>
      document.getElementById(input?.getAttribute('aria-describedby') ?? '')?.textContent ?? '';
    const inputs = [...(container?.querySelectorAll<HTMLInputElement>('input') ?? [])];
    const variant = inputs.find((input) => input.closest('label')?.textContent === 'Variant');
    const start = inputs.find((input) => input.closest('label')?.textContent === 'Start');
    expect(description(variant)).toContain('0: a variant picked at random for each game.');
    expect(description(start)).toContain('Deploy the machines and start the clock at launch.');
  });

  it("offers the workspace's duration as Max minutes, and says when it lowers a value", async () => {
    const { note, setMinutes } = await renderTab(30);
    const field = container?.querySelector<HTMLInputElement>(
      'input[aria-describedby="tp-launch-minutes-cap"]',
    );
    expect(field?.value).toBe('');
    expect(field?.placeholder).toBe('30');
    expect(note()).toContain("At most 30 minutes: the workspace's duration.");
    expect(note()).toContain('Left empty, the game lasts 30 minutes.');
    expect(note()).not.toContain('lowered');
    await setMinutes(60);
    expect(field?.value).toBe('60');
    expect(note()).toContain('60 minutes is lowered to 30 at launch.');
    await setMinutes(20);
    expect(note()).not.toContain('lowered');
    await setMinutes(30);
    expect(note()).not.toContain('lowered');
  });

  it("names the account's own limit when it sets the cap", async () => {
    const { note } = await renderTab(30, 90);
    expect(note()).toContain("At most 90 minutes: your account's limit.");
    expect(note()).not.toContain('lowered');
  });

  it('names the default when the workspace sets no duration', async () => {
    const { note } = await renderTab(0);
    expect(note()).toContain(
      'At most 120 minutes: the default, as the workspace sets no duration.',
    );
  });
});
