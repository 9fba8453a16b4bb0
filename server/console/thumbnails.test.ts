import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../tests/server/manualClock';
import { decodePng, expectedThumbnail } from '../../tests/server/thumbnails/pngDecode';
import type { ConsoleViewer, DriverEvent, Machine } from '../hypervisor';
import { createSimConsoles } from '../hypervisor/sim/console/consoles';
import { renderScreen } from '../hypervisor/sim/console/screen';
import { newTerminal } from '../hypervisor/sim/console/terminal';
import {
  createThumbnails,
  THUMBNAIL_IDLE_MS,
  THUMBNAIL_INTERVAL_MS,
  thumbnailCapReason,
} from './thumbnails';

// The thumbnail captures over the simulated consoles, on a manual clock. The driver is a fake at
// its boundary (a map of machines) whose consoles are the sim's drawn ones, counting opens.

function machine(id: string, name: string): Machine {
  return {
    id,
    name,
    host: 'sim',
    path: '',
    reference: '',
    diskPath: '',
    stats: '',
    status: 'deployed',
    tags: null,
    state: 'running',
    question: null,
    task: null,
    isTemplate: false,
    nics: [],
  };
}

function lab() {
  const clock = createManualClock();
  const machines = new Map<string, Machine>([
    ['m1', machine('m1', 'kali#g1')],
    ['m2', machine('m2', 'web#g1')],
  ]);
  const listeners = new Set<(event: DriverEvent) => void>();
  const consoles = createSimConsoles({
    load: async (id) => machines.get(id) ?? null,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    clock,
  });
  const opened: string[] = [];
  /** FramebufferUpdateRequests the consoles received: [incremental flag]. */
  const requests: number[] = [];
  const driver = {
    async openConsole(id: string, viewer: ConsoleViewer) {
      opened.push(id);
      const session = await consoles.open(id, viewer);
      return {
        receive(bytes: Uint8Array) {
          if (bytes[0] === 3) requests.push(bytes[1]!);
          session.receive(bytes);
        },
        end: () => session.end(),
      };
    },
  };
  const announce = (event: DriverEvent) => listeners.forEach((l) => l(event));
  return { clock, machines, driver, opened, requests, announce };
}

describe('thumbnail captures', () => {
  it("answers the machine's screen, shrunk, as a PNG with an ETag", async () => {
    const { clock, driver } = lab();
    const thumbnails = createThumbnails({ driver, clock });
    const answer = await thumbnails.thumbnail('m1');
    if (!('picture' in answer)) throw new Error(`no picture: ${JSON.stringify(answer)}`);
    const { png, etag } = answer.picture;
    expect(etag).toMatch(/^"[\w-]+"$/);
    const decoded = decodePng(png);
    const screen = renderScreen({
      name: 'kali',
      state: 'running',
      running: true,
      terminal: newTerminal('kali'),
    });
    expect([decoded.width, decoded.height]).toEqual([320, 192]);
    const expected = expectedThumbnail(screen.pixels, screen.width, screen.height, 320, 192);
    expect(Buffer.from(decoded.rgb).equals(Buffer.from(expected))).toBe(true);
    thumbnails.close();
  });

  it('shares one console session among every request for a machine', async () => {
    const { clock, driver, opened } = lab();
    const thumbnails = createThumbnails({ driver, clock });
    const answers = await Promise.all([thumbnails.thumbnail('m1'), thumbnails.thumbnail('m1')]);
    const again = await thumbnails.thumbnail('m1');
    expect(opened).toEqual(['m1']);
    const etags = [...answers, again].map((a) => ('picture' in a ? a.picture.etag : null));
    expect(new Set(etags).size).toBe(1);
    expect(etags[0]).not.toBeNull();
    expect(thumbnails.count()).toBe(1);
    thumbnails.close();
  });

  it('closes a capture nobody asked for in the idle time, and starts again when asked', async () => {
    const { clock, driver, opened } = lab();
    const thumbnails = createThumbnails({ driver, clock });
    await thumbnails.thumbnail('m1');
    // Asked again before the idle time is up: it stays.
    clock.advance(THUMBNAIL_IDLE_MS - 1_000);
    await thumbnails.thumbnail('m1');
    clock.advance(THUMBNAIL_IDLE_MS - 1_000);
    expect(thumbnails.captures('m1')).toBe(true);
    clock.advance(1_000);
    expect(thumbnails.captures('m1')).toBe(false);
    expect(thumbnails.count()).toBe(0);
    await thumbnails.thumbnail('m1');
    expect(opened).toEqual(['m1', 'm1']);
    thumbnails.close();
  });

  it('asks for changes at the interval, and nothing more of a screen that does not change', async () => {
    const { clock, driver, requests } = lab();
    const thumbnails = createThumbnails({ driver, clock });
    await thumbnails.thumbnail('m1');
    expect(requests).toEqual([0]);
    clock.advance(THUMBNAIL_INTERVAL_MS - 1);
    expect(requests).toEqual([0]);
    clock.advance(1);
    await expect.poll(() => requests).toEqual([0, 1]);
    // The console holds an incremental request until its screen changes: nothing more is sent.
    for (let i = 0; i < 5; i++) {
      clock.advance(THUMBNAIL_INTERVAL_MS);
      await thumbnails.thumbnail('m1');
    }
    expect(requests).toEqual([0, 1]);
    thumbnails.close();
  });

  it('refuses a capture over the cap, and lets one in when another ended', async () => {
    const { clock, driver } = lab();
    const thumbnails = createThumbnails({ driver, clock, maxCaptures: 1 });
    expect('picture' in (await thumbnails.thumbnail('m1'))).toBe(true);
    expect(await thumbnails.thumbnail('m2')).toEqual({ refused: thumbnailCapReason(1) });
    clock.advance(THUMBNAIL_IDLE_MS);
    expect('picture' in (await thumbnails.thumbnail('m2'))).toBe(true);
    thumbnails.close();
  });

  it('ends the capture when the console closes; a later request starts another', async () => {
    const { clock, driver, machines, announce, opened } = lab();
    const thumbnails = createThumbnails({ driver, clock });
    await thumbnails.thumbnail('m1');
    const stopped = { ...machines.get('m1')!, state: 'off' as const };
    machines.set('m1', stopped);
    announce({ type: 'stopped', machine: stopped });
    await expect.poll(() => thumbnails.captures('m1')).toBe(false);
    machines.set('m1', { ...stopped, state: 'running' });
    expect('picture' in (await thumbnails.thumbnail('m1'))).toBe(true);
    expect(opened).toEqual(['m1', 'm1']);
    thumbnails.close();
  });

  it('answers no picture when the console does not open in the wait', async () => {
    const { clock } = lab();
    const never = { openConsole: () => new Promise<never>(() => {}) };
    const thumbnails = createThumbnails({ driver: never, clock, firstPictureWaitMs: 1_500 });
    const answer = thumbnails.thumbnail('m1');
    await expect.poll(() => clock.pending()).toBeGreaterThan(1);
    clock.advance(1_500);
    expect(await answer).toEqual({ none: true });
    thumbnails.close();
  });

  it('answers no picture, and keeps no capture, when the console fails to open', async () => {
    const { clock, driver, machines } = lab();
    machines.delete('m1');
    const thumbnails = createThumbnails({ driver, clock });
    expect(await thumbnails.thumbnail('m1')).toEqual({ none: true });
    expect(thumbnails.count()).toBe(0);
    thumbnails.close();
  });
});
