import { describe, expect, it } from 'vitest';
import {
  clockOf,
  matchesFilter,
  stateText,
  timelineEntryOf,
  wordsOf,
  type RecordedEvent,
} from './eventTimeline';

const at = new Date(2026, 10, 29, 9, 14, 3, 120).getTime();
const entry = (event: RecordedEvent['event'], more: Partial<RecordedEvent> = {}) =>
  timelineEntryOf({ seq: 7, at, actorId: 'x:39', event, machine: 'workspaceArchive', ...more });

describe('timelineEntryOf', () => {
  it('names the screen after the machine, not the actor session id, and the local time', () => {
    const row = entry({ type: 'archive.downloadRequested' });
    expect(row.screen).toBe('Workspace archive');
    expect(row.time).toBe('09:14:03.120');
    expect(row.seq).toBe(7);
  });

  it('says in words what a user or the app did', () => {
    expect(entry({ type: 'archive.downloadRequested' })).toMatchObject({
      happened: 'Archive: download requested',
      kind: 'action',
    });
    expect(entry({ type: 'document.edited' }).happened).toBe('Document: edited');
  });

  it('tells which work finished or failed, from the xstate.done and xstate.error names', () => {
    expect(entry({ type: 'xstate.done.actor.0.workspaceArchive.downloading' })).toMatchObject({
      happened: 'Finished: downloading',
      kind: 'result',
    });
    expect(entry({ type: 'xstate.error.actor.0.workspaceArchive.editing.saving' })).toMatchObject({
      happened: 'Failed: editing › saving',
      kind: 'failure',
    });
  });

  it('says how long a timer waited and where, and when a screen opened or closed', () => {
    expect(
      entry({ type: 'xstate.after.2000.vmController.polling' }, { machine: 'vmController' }),
    ).toMatchObject({ happened: '2 s passed in polling', kind: 'timer' });
    expect(entry({ type: 'xstate.init' })).toMatchObject({ happened: 'Opened', kind: 'lifecycle' });
    expect(entry({ type: 'xstate.stop' }).happened).toBe('Closed');
  });

  it('shows the state before and after, nested states joined', () => {
    const row = entry(
      { type: 'save.requested' },
      { before: { editing: 'ready' }, after: { editing: 'saving' } },
    );
    expect([row.before, row.after]).toEqual(['editing › ready', 'editing › saving']);
    expect(entry({ type: 'x.y' }).before).toBe('');
  });

  it('of parallel states, shows only the regions the event moved', () => {
    const row = entry(
      { type: 'xstate.done.actor.0.adminDashboard.live.loading' },
      {
        before: { announce: 'editing', live: 'loading', janitor: 'idle' },
        after: { announce: 'editing', live: 'loaded', janitor: 'idle' },
      },
    );
    expect([row.before, row.after]).toEqual(['live › loading', 'live › loaded']);
    const still = entry({ type: 'x.y' }, { before: { a: 'x' }, after: { a: 'x' } });
    expect([still.before, still.after]).toEqual(['a › x', 'a › x']);
  });

  it('falls back to the actor id when the machine is not known', () => {
    expect(entry({ type: 'x.y' }, { machine: undefined, actorId: 'hubConnection' }).screen).toBe(
      'Hub connection',
    );
  });
});

describe('stateText and wordsOf', () => {
  it('writes parallel states side by side', () => {
    expect(stateText({ list: 'loaded', form: { editing: 'dirty' } })).toBe(
      'list › loaded, form › editing › dirty',
    );
    expect(stateText(undefined)).toBe('');
  });

  it('splits identifiers into words and keeps acronyms', () => {
    expect(wordsOf('gamespaceSession')).toBe('Gamespace session');
    expect(wordsOf('vmController')).toBe('Vm controller');
    expect(wordsOf('isoChooser')).toBe('Iso chooser');
    expect(wordsOf('openAPIView')).toBe('Open API view');
  });

  it('pads the clock', () => {
    expect(clockOf(new Date(2026, 0, 1, 1, 2, 3, 4).getTime())).toBe('01:02:03.004');
  });
});

describe('matchesFilter', () => {
  const row = entry(
    { type: 'xstate.done.actor.0.workspaceArchive.downloading' },
    { after: 'idle' },
  );

  it('keeps the entries of the screen, kinds and words asked for', () => {
    expect(matchesFilter(row, { screen: '', kinds: [], text: '' })).toBe(true);
    expect(matchesFilter(row, { screen: 'Workspace archive', kinds: ['result'], text: '' })).toBe(
      true,
    );
    expect(matchesFilter(row, { screen: 'Hub connection', kinds: [], text: '' })).toBe(false);
    expect(matchesFilter(row, { screen: '', kinds: ['timer'], text: '' })).toBe(false);
    expect(matchesFilter(row, { screen: '', kinds: [], text: 'DOWNLOADING idle' })).toBe(true);
    expect(matchesFilter(row, { screen: '', kinds: [], text: 'upload' })).toBe(false);
  });
});
