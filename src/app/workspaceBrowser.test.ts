import { describe, expect, it } from 'vitest';
import { UNSET_DATE } from '../domain/time';
import type { LocalSettingsStore } from './localSettings';
import { rememberedBrowseMode, toGamespaceCard, toWorkspaceCard } from './workspaceBrowser';

const localWith = (browseMode: string | undefined): LocalSettingsStore => ({
  read: () => (browseMode === undefined ? {} : { browseMode }),
  update: () => undefined,
  rememberLast: () => undefined,
  forgetLast: () => undefined,
  takeLastForRestore: () => undefined,
});

describe('workspace browser wiring', () => {
  it('shows a workspace summary by id, name and slug', () => {
    expect(toWorkspaceCard({ id: 'ws1', name: 'Lab One', slug: 'lab-one' })).toEqual({
      id: 'ws1',
      name: 'Lab One',
      slug: 'lab-one',
    });
    expect(toWorkspaceCard({ id: 'ws1', name: null })).toEqual({ id: 'ws1', name: '', slug: '' });
  });

  it('reads a started gamespace and its expiry from the wire dates', () => {
    expect(
      toGamespaceCard({
        id: 'gs1',
        workspaceId: 'ws1',
        name: 'Lab One',
        slug: 'lab-one',
        startTime: '2026-01-01T00:00:00+00:00',
        expirationTime: '2026-01-01T01:00:00+00:00',
      }),
    ).toEqual({
      id: 'gs1',
      workspaceId: 'ws1',
      name: 'Lab One',
      slug: 'lab-one',
      started: true,
      expiresAt: Date.parse('2026-01-01T01:00:00Z'),
    });
  });

  it("reads '0001-…' dates as not started and no expiry", () => {
    expect(
      toGamespaceCard({ id: 'gs1', startTime: UNSET_DATE, expirationTime: UNSET_DATE }),
    ).toMatchObject({ workspaceId: null, started: false, expiresAt: null });
  });

  it('starts in the remembered browse mode, ignoring values it does not know', () => {
    expect(rememberedBrowseMode(localWith('gamespaces'))).toEqual({ mode: 'gamespaces' });
    expect(rememberedBrowseMode(localWith('workspace'))).toEqual({});
    expect(rememberedBrowseMode(localWith(undefined))).toEqual({});
  });
});
