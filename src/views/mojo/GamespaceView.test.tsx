// @vitest-environment jsdom
import { act, type ReactNode } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, it } from 'vitest';
import { createActor, fromCallback, fromPromise } from 'xstate';
import { gamespaceActionMachine } from '../../machines/gamespaceActionMachine';
import { gamespacePlayMachine } from '../../machines/gamespacePlayMachine';
import { gamespaceSessionMachine, type GameState } from '../../machines/gamespaceSessionMachine';
import {
  selectGamespacePlay,
  selectGameVms,
} from '../../machines/gamespaceSessionMachine.selectors';
import { gameVmsMachine } from '../../machines/gameVmsMachine';
import { questionSetMachine, type ChallengeProgress } from '../../machines/questionSetMachine';
import { vmControllerMachine } from '../../machines/vmControllerMachine';
import { vmLoadMachine } from '../../machines/vmLoadMachine';
import { UNSET_DATE } from '../../domain/time';
import { deferred } from '../../machines/testing/deferred';
import { GamespaceView } from './GamespaceView';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

let root: Root | null = null;
let container: HTMLElement | null = null;

afterEach(() => {
  act(() => root?.unmount());
  container?.remove();
  root = null;
  container = null;
});

const T0 = Date.parse('2030-01-01T10:00:00Z');
const MINUTE = 60_000;
const game: GameState = {
  id: 'gs1',
  workspaceId: 'ws1',
  name: 'Lab',
  slug: 'lab',
  markdown: '# Welcome',
  challenge: { text: 'Find the **flag**.' },
  isActive: true,
  // The manager's view; an invited player's says false.
  canManage: true,
  startTime: new Date(T0).toISOString(),
  endTime: UNSET_DATE,
  expirationTime: new Date(T0 + 90 * MINUTE).toISOString(),
  vms: [],
};
const progress: ChallengeProgress = {
  maxPoints: 100,
  score: 0,
  variant: {
    totalSectionCount: 2,
    sections: [{ name: 'First', questions: [{ text: 'What is 6 x 7?', weight: 1 }] }],
  },
};

/** The play page's controller of a machine, over a server that has it running. */
const runningVm = vmControllerMachine.provide({
  actors: {
    vmLoad: vmLoadMachine.provide({
      actors: {
        loadTemplateMachine: fromPromise(async ({ input }) => ({
          id: input.templateId,
          name: 'web#gs1',
          status: 'deployed',
          state: 'running',
        })),
        // A machine the game lists as running is loaded by its id.
        loadVm: fromPromise(async ({ input }) => ({
          id: input.id,
          name: 'web#gs1',
          status: 'deployed',
          state: 'running',
        })),
      },
    }),
    vmEvents: fromCallback(() => undefined) as never,
  },
});

async function renderPage(
  state: GameState | { reject: unknown },
  now: number,
  options: {
    launch?: Promise<GameState>;
    progress?: ChallengeProgress;
    help?: (gamespaceId: string) => ReactNode;
  } = {},
) {
  const session = createActor(
    gamespaceSessionMachine.provide({
      actors: {
        gamespaceAction: gamespaceActionMachine.provide({
          actors: {
            registerGamespace: fromPromise(() => options.launch ?? Promise.resolve(game)),
          },
        }),
        loadGamespace: fromPromise(async () => {
          if ('reject' in state) throw state.reject;
          return state;
        }),
        listenToChannel: fromCallback(() => undefined),
        // No hub events and no ticks: the page stays at the time it opened.
        gameEvents: fromCallback(() => undefined) as never,
        clock: fromCallback(() => undefined) as never,
        gamespacePlay: gamespacePlayMachine.provide({
          actors: {
            gameVms: gameVmsMachine.provide({ actors: { vmController: runningVm } }),
            inviteToGamespace: fromPromise(async () => ({ code: 'c0de' })),
            copyToClipboard: fromPromise<void, { text: string }>(async () => undefined),
            questionSet: questionSetMachine.provide({
              actors: { loadProgress: fromPromise(async () => options.progress ?? progress) },
            }),
          },
        }),
      },
    }),
    { input: { id: 'gs1', now, origin: '', controlsMachines: true } },
  ).start();
  container = document.createElement('div');
  document.body.append(container);
  root = createRoot(container);
  await act(async () =>
    root?.render(
      <MemoryRouter>
        <GamespaceView session={session} help={options.help} />
      </MemoryRouter>,
    ),
  );
  await act(async () => new Promise((resolve) => setTimeout(resolve, 0)));
  return { session, text: () => container?.textContent ?? '' };
}

const button = (name: string) =>
  [...(container?.querySelectorAll('button') ?? [])].find((b) => b.textContent === name);

describe('GamespaceView', () => {
  it('shows the clock, End, Reset, Deploy, the document and the first question set during play', async () => {
    const { text } = await renderPage(game, T0 + 30 * MINUTE);
    expect(container?.querySelector('[role="timer"]')?.textContent).toBe('01:00:00');
    expect(button('Start')).toBeUndefined();
    expect(button('End')).toBeDefined();
    expect(button('Reset')).toBeDefined();
    expect(button('Deploy')).toBeDefined();
    expect(text()).toContain('Welcome');
    expect(text()).toContain('Find the flag.');
    expect(text()).toContain('What is 6 x 7?');
    expect(button('Submit')?.disabled).toBe(false);
    expect(text()).toContain('1 more question set unlocks');
    expect(text()).not.toContain('Game Over');
  });

  it('offers an invited player no manager actions: only Reset, the machines and the quiz', async () => {
    const { text } = await renderPage({ ...game, canManage: false }, T0 + 30 * MINUTE);
    for (const name of ['Start', 'End', 'Deploy', 'Destroy', 'Invite', 'Add 15 min']) {
      expect(button(name), name).toBeUndefined();
    }
    expect(button('Reset')).toBeDefined();
    expect(button('Submit')?.disabled).toBe(false);
    expect(text()).toContain('What is 6 x 7?');
  });

  it('tells an invited player why no machine is listed yet; the manager sees Deploy', async () => {
    const { text } = await renderPage({ ...game, canManage: false }, T0 + 30 * MINUTE);
    expect(text()).toContain("No machines are deployed yet: the game's manager deploys them.");
    const manager = await renderPage(game, T0 + 30 * MINUTE);
    expect(button('Deploy')).toBeDefined();
    expect(manager.text()).not.toContain('No machines are deployed yet');
  });

  it('shows no empty Challenge heading for a lab without challenge text or questions', async () => {
    const none: ChallengeProgress = { maxPoints: 0, score: 0, variant: { sections: [] } };
    await renderPage({ ...game, challenge: {} }, T0 + 30 * MINUTE, { progress: none });
    expect(container?.querySelector('[aria-label="Challenge"]')).toBeNull();
    await renderPage(game, T0 + 30 * MINUTE, { progress: none });
    expect(container?.querySelector('[aria-label="Challenge"]')?.textContent).toContain(
      'Find the flag.',
    );
  });

  it('offers Ask for help for the gamespace during play only', async () => {
    const help = (id: string) => <p data-testid="help">help for {id}</p>;
    const helpShown = () => container?.querySelector('[data-testid="help"]')?.textContent;
    await renderPage(game, T0 + 30 * MINUTE, { help });
    expect(helpShown()).toBe('help for gs1');
    await renderPage({ ...game, startTime: new Date(T0 + 10 * MINUTE).toISOString() }, T0, {
      help,
    });
    expect(helpShown()).toBeUndefined();
    await renderPage(
      { ...game, endTime: new Date(T0 + 12 * MINUTE).toISOString() },
      T0 + 20 * MINUTE,
      {
        help,
      },
    );
    expect(helpShown()).toBeUndefined();
  });

  it('offers Start before play to a manager, not to an invited player', async () => {
    const before = { ...game, startTime: new Date(T0 + 10 * MINUTE).toISOString() };
    await renderPage(before, T0);
    expect(button('Start')).toBeDefined();
    await renderPage({ ...before, canManage: false }, T0);
    expect(button('Start')).toBeUndefined();
  });

  it("shows 'Game Over' with the time used and when it ended, without the countdown or Submit", async () => {
    const { text } = await renderPage(
      { ...game, endTime: new Date(T0 + 12 * MINUTE + 34_000).toISOString() },
      T0 + 20 * MINUTE,
    );
    expect(text()).toContain('Game Over');
    expect(text()).toContain('The game was ended.');
    expect(text()).toContain('Time used 00:12:34 of 01:30:00');
    expect(text()).toContain(`Ended ${new Date(T0 + 12 * MINUTE + 34_000).toLocaleString()}`);
    expect(container?.querySelector('[role="timer"]')).toBeNull();
    expect(button('End')).toBeUndefined();
    expect(button('Submit')).toBeUndefined();
    // The link of a game that is over would invite to nothing.
    expect(button('Invite')).toBeUndefined();
  });

  it('offers a new game once the game is over, saying what it is, and asks in its words', async () => {
    const { session, text } = await renderPage(game, T0 + 91 * MINUTE);
    expect(text()).toContain('Time is up.');
    expect(text()).toContain('Time used 01:30:00 of 01:30:00');
    expect(button('Start')).toBeUndefined();
    expect(text()).toContain(
      'A new game of this workspace starts with its own machines, the full time and no answers.',
    );
    await act(async () => button('Start a new game')?.click());
    expect(session.getSnapshot().matches({ activity: 'confirming' })).toBe(true);
    expect(
      container?.querySelector('.tp-game-new [role="group"][aria-label="Start a new game?"]'),
    ).not.toBeNull();
  });

  it('keeps Start in place, disabled, and says what happens while the launch runs', async () => {
    const launch = deferred<GameState>();
    const preview: GameState = { workspaceId: 'ws1', name: 'Lab', markdown: '# Welcome' };
    const { text } = await renderPage(preview, T0, { launch: launch.promise });
    await act(async () => button('Start')?.click());
    await act(async () => button('Confirm')?.click());
    expect(button('Start')).toBeUndefined();
    expect(button('Starting…')?.disabled).toBe(true);
    const status = container?.querySelector('.tp-game-launching');
    expect(status?.getAttribute('role')).toBe('status');
    expect(status?.textContent).toBe('Starting the game: its machines are being deployed…');
    await act(async () => launch.resolve(game));
    expect(button('Starting…')).toBeUndefined();
    expect(button('End')).toBeDefined();
    expect(text()).not.toContain('being deployed');
  });

  it('warns when 5 minutes are left and offers Extend to a manager', async () => {
    const { session, text } = await renderPage({ ...game, canManage: true }, T0 + 86 * MINUTE);
    const notice = container?.querySelector('[role="alert"].tp-game-time-notice');
    expect(notice?.textContent).toBe(
      'Less than 5 minutes left. Add 15 min gives the game more time.',
    );
    await act(async () => button('Add 15 min')?.click());
    expect(session.getSnapshot().matches({ activity: 'confirming' })).toBe(true);
    expect(text()).toContain('Add 15 minutes to the game?');
  });

  it('tells a player who may extend the game, without offering Extend', async () => {
    const { text } = await renderPage(
      { ...game, canManage: false, managerName: 'Ann' },
      T0 + 89 * MINUTE + 30_000,
    );
    expect(button('Add 15 min')).toBeUndefined();
    expect(container?.querySelector('[role="alert"].tp-game-time-notice')?.textContent).toBe(
      'Less than a minute left. Only Ann or an administrator can extend the game.',
    );
    expect(text()).not.toContain('more time');
  });

  it('shows the score and the attempts, and updates them with each new state', async () => {
    const challenge = { text: 'Go.', score: 0, maxPoints: 100, attempts: 0, maxAttempts: 3 };
    const { session, text } = await renderPage({ ...game, challenge }, T0 + MINUTE);
    expect(text()).toContain('Score 0 / 100');
    expect(text()).toContain('Attempts 0 / 3');
    await act(async () =>
      session.send({
        type: 'quiz.graded',
        state: { ...game, challenge: { ...challenge, score: 30, attempts: 1 } },
      }),
    );
    expect(text()).toContain('Score 30 / 100');
    expect(text()).toContain('Attempts 1 / 3');
    await act(async () =>
      session.send({
        type: 'game.updated',
        state: { ...game, challenge: { ...challenge, score: 30, attempts: 2, maxAttempts: 0 } },
      }),
    );
    expect(text()).toContain('Attempts 2');
    expect(text()).not.toContain('Attempts 2 /');
  });

  it('says why the game is over under Game Over', async () => {
    const ended = { ...game, endTime: new Date(T0 + MINUTE).toISOString() };
    const challenge = { score: 100, maxPoints: 100, attempts: 2, maxAttempts: 3 };
    const full = await renderPage({ ...ended, challenge }, T0 + 2 * MINUTE);
    expect(full.text()).toContain('Game Over');
    expect(full.text()).toContain('Every question is answered: full score.');
    await act(async () =>
      full.session.send({
        type: 'game.updated',
        state: { ...ended, challenge: { ...challenge, score: 40, attempts: 3 } },
      }),
    );
    expect(full.text()).toContain('All attempts are used up.');
    await act(async () =>
      full.session.send({
        type: 'game.updated',
        state: { ...ended, challenge: { ...challenge, score: 40 } },
      }),
    );
    expect(full.text()).toContain('The game was ended.');
  });

  it('shows at once that the gamespace was not found, with the way home and no Start', async () => {
    const { text } = await renderPage(
      { reject: { status: 400, message: 'ResourceNotFound' } },
      T0 + MINUTE,
    );
    expect(text()).toContain('Gamespace not found');
    expect(container?.querySelector('a[href="/"]')?.textContent).toBe('Home');
    expect(button('Start')).toBeUndefined();
    expect(container?.querySelector('[role="timer"]')).toBeNull();
  });

  it('asks before ending the game', async () => {
    const { session } = await renderPage(game, T0 + MINUTE);
    await act(async () => button('End')?.click());
    expect(container?.textContent).toContain('End the game?');
    expect(session.getSnapshot().matches({ activity: 'confirming' })).toBe(true);
  });

  it("shows a controller for each of the game's machines, which the session runs", async () => {
    const { session } = await renderPage(
      { ...game, vms: [{ id: 'vm1', name: 'web', isRunning: true }] },
      T0 + MINUTE,
    );
    await act(async () => new Promise((resolve) => setTimeout(resolve, 0)));
    const machine = container?.querySelector('[aria-label="Machine web"]');
    expect(machine).not.toBeNull();
    // The play page's controller: running, with its console, and without Delete.
    expect(machine?.querySelector('[aria-label="Stop"]')).not.toBeNull();
    expect(machine?.querySelector('[aria-label="Console"]')).not.toBeNull();
    expect(machine?.querySelector('[aria-label="Delete machine"]')).toBeNull();
    expect(
      selectGameVms(selectGamespacePlay(session.getSnapshot())?.getSnapshot())?.getSnapshot()
        .context.controllers.vm1,
    ).toBeDefined();
    await act(async () =>
      session.send({
        type: 'game.updated',
        state: { ...game, vms: [], endTime: new Date(T0 + MINUTE).toISOString() },
      }),
    );
    expect(container?.querySelector('[aria-label="Machine web"]')).toBeNull();
    expect(
      selectGameVms(selectGamespacePlay(session.getSnapshot())?.getSnapshot()),
    ).toBeUndefined();
  });

  it('takes the invitation link away when the game ends', async () => {
    const { session } = await renderPage(game, T0 + MINUTE);
    const link = () =>
      container?.querySelector<HTMLInputElement>('input[aria-label="Invitation link"]');
    await act(async () => button('Invite')?.click());
    await act(async () => new Promise((resolve) => setTimeout(resolve, 0)));
    expect(link()?.value).toBe('/mojo/gs1/lab/c0de');
    await act(async () =>
      session.send({
        type: 'game.updated',
        state: { ...game, endTime: new Date(T0 + MINUTE).toISOString() },
      }),
    );
    expect(container?.textContent).toContain('Game Over');
    expect(link()).toBeNull();
  });
});
