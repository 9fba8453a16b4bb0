import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { not, setup } from 'xstate';
import { CHARTS_DIR, chartFileName, renderChart } from '../scripts/chartsLib';
import { machines } from '../src/machines/registry';

const chartsDir = fileURLToPath(new URL(`../${CHARTS_DIR}/`, import.meta.url));
const RUN = 'run `npm run charts` and commit docs/charts';

describe('docs/charts', () => {
  for (const [name, machine] of Object.entries(machines)) {
    it(`has an up-to-date chart of ${name}`, () => {
      const file = `${chartsDir}${chartFileName(name)}`;
      expect(existsSync(file), `${CHARTS_DIR}/${chartFileName(name)} is missing: ${RUN}`).toBe(
        true,
      );
      expect(
        readFileSync(file, 'utf8'),
        `${CHARTS_DIR}/${chartFileName(name)} is out of date: ${RUN}`,
      ).toBe(renderChart(name, machine));
    });
  }

  it('has no chart of a machine that is not registered', () => {
    const registered = Object.keys(machines).map(chartFileName);
    const stale = readdirSync(chartsDir).filter(
      (file) => file.endsWith('.md') && !registered.includes(file),
    );
    expect(stale, `charts without a machine in src/machines/registry.ts: ${RUN}`).toEqual([]);
  });
});

describe('renderChart', () => {
  const sample = setup({
    types: { events: {} as { type: 'go' } | { type: 'stop' } | { type: 'fail' } },
    guards: { isReady: () => true },
    delays: { pause: 2_000 },
  }).createMachine({
    id: 'sample',
    description: 'A sample machine.',
    initial: 'idle',
    states: {
      idle: { on: { go: { target: 'busy.working.fast', guard: not('isReady') } } },
      busy: {
        type: 'parallel',
        on: { stop: 'done' },
        states: {
          working: {
            initial: 'slow',
            states: {
              slow: { after: { pause: 'fast' } },
              fast: { on: { go: { target: 'fast', reenter: true } } },
            },
          },
          watching: {
            initial: 'on',
            states: { on: { on: { fail: '#sample.idle' } } },
          },
        },
      },
      done: { type: 'final' },
    },
  });
  const chart = renderChart('sample', sample);

  it('starts with the title and the description', () => {
    expect(chart.startsWith('# sample\n\nA sample machine.\n')).toBe(true);
    expect(chart).toContain('```mermaid\nstateDiagram-v2\n');
  });

  it('nests compound states, separates parallel regions and marks initial and final states', () => {
    expect(chart).toContain('[*] --> sample__idle');
    expect(chart).toContain('state "busy" as sample__busy {');
    expect(chart).toMatch(/^ {6}--$/m);
    expect(chart).toContain('sample__done --> [*]');
  });

  it('labels transitions with their events, guards, delays and re-entry', () => {
    expect(chart).toContain(
      'sample__busy__working__slow --> sample__busy__working__fast : after 2s',
    );
    expect(chart).toContain(
      'sample__busy__working__fast --> sample__busy__working__fast : go (reenter)',
    );
    expect(chart).toContain('sample__busy --> sample__done : stop');
  });

  it('draws transitions between composite states at their common level and names the real end', () => {
    expect(chart).toContain(
      'sample__idle --> sample__busy : go [not(isReady)] (to busy.working.fast)',
    );
    expect(chart).toContain('sample__busy --> sample__idle : fail (from busy.watching.on)');
  });
});
