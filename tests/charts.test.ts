import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createMachine, not, setup } from 'xstate';
import {
  CHARTS_DIR,
  chartFileName,
  inlineGuards,
  OVERVIEW_FILE,
  renderChart,
  renderOverview,
  SERVER_CHARTS_DIR,
} from '../scripts/chartsLib';
import { serverMachines } from '../server/machines';
import { machines } from '../src/machines/registry';

const chartsDir = fileURLToPath(new URL(`../${CHARTS_DIR}/`, import.meta.url));
const serverChartsDir = fileURLToPath(new URL(`../${SERVER_CHARTS_DIR}/`, import.meta.url));
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

  it('has an up-to-date overview of which machine runs which', () => {
    const file = `${chartsDir}${OVERVIEW_FILE}`;
    expect(existsSync(file), `${CHARTS_DIR}/${OVERVIEW_FILE} is missing: ${RUN}`).toBe(true);
    expect(
      readFileSync(file, 'utf8'),
      `${CHARTS_DIR}/${OVERVIEW_FILE} is out of date: ${RUN}`,
    ).toBe(renderOverview(machines, serverMachines));
  });

  it('has no chart of a machine that is not registered', () => {
    const registered = [OVERVIEW_FILE, ...Object.keys(machines).map(chartFileName)];
    const stale = readdirSync(chartsDir).filter(
      (file) => file.endsWith('.md') && !registered.includes(file),
    );
    expect(stale, `charts without a machine in src/machines/registry.ts: ${RUN}`).toEqual([]);
  });

  for (const [name, machine] of Object.entries(serverMachines)) {
    it(`has an up-to-date chart of the server's ${name}`, () => {
      const file = `${serverChartsDir}${chartFileName(name)}`;
      const shown = `${SERVER_CHARTS_DIR}/${chartFileName(name)}`;
      expect(existsSync(file), `${shown} is missing: ${RUN}`).toBe(true);
      expect(readFileSync(file, 'utf8'), `${shown} is out of date: ${RUN}`).toBe(
        renderChart(name, machine),
      );
    });
  }

  it('has no chart of a server machine that is not registered', () => {
    const registered = Object.keys(serverMachines).map(chartFileName);
    const stale = readdirSync(serverChartsDir).filter(
      (file) => file.endsWith('.md') && !registered.includes(file),
    );
    expect(stale, `charts without a machine in server/machines.ts: ${RUN}`).toEqual([]);
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

  it('nests compound states, draws parallel regions as dashed boxes and marks initial and final states', () => {
    expect(chart).toContain('[*] --> sample__idle');
    expect(chart).toContain('state "busy" as sample__busy {');
    expect(chart).toContain('class sample__busy__working, sample__busy__watching region');
    expect(chart).toContain('Dashed boxes side by side are the parallel regions');
    // Mermaid 11 cannot lay out an arrow into a composite state inside a `--` section.
    expect(chart).not.toMatch(/^ *--$/m);
    expect(chart).not.toMatch(/\[\*\] --> sample__busy__(working|watching)$/m);
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

  it('draws transitions into and out of composite states to and from the real states', () => {
    expect(chart).toContain('sample__idle --> sample__busy__working__fast : go [not(isReady)]');
    expect(chart).toContain('sample__busy__watching__on --> sample__idle : fail');
  });

  it('writes an edge between nested states at the top level, so that Mermaid keeps them in their boxes', () => {
    const topLevel = chart.split('\n').filter((line) => /^ {2}\w.* --> /.test(line));
    expect(topLevel).toEqual([
      '  sample__idle --> sample__busy__working__fast : go [not(isReady)]',
      '  sample__busy__watching__on --> sample__idle : fail',
    ]);
  });
});

describe('renderChart of transitions declared on a composite state', () => {
  const machine = setup({
    types: {
      events: {} as { type: 'reset' } | { type: 'dismiss' } | { type: 'poke' } | { type: 'next' },
    },
    guards: { hasMore: () => true },
  }).createMachine({
    id: 'form',
    initial: 'editing',
    on: { reset: '.editing', dismiss: {} },
    states: {
      editing: {
        on: { next: 'saving', poke: {}, dismiss: { guard: 'hasMore' } },
      },
      saving: {},
    },
  });
  const chart = renderChart('form', machine);

  it("draws them from the composite's dashed 'any state' node to their real target", () => {
    expect(chart).toContain('state "any state" as form__any');
    expect(chart).toContain('form__any --> form__editing : reset');
    expect(chart).toContain('class form__any anyState');
    expect(chart).toContain('A dashed *any state* node');
  });

  it('draws a targetless one as a loop of the any-state node', () => {
    expect(chart).toContain('form__any --> form__any : dismiss');
  });

  it("draws a state's loops as one arrow, one label under the other", () => {
    expect(chart).toContain('form__editing --> form__editing : poke<br>dismiss [hasMore]');
  });

  it('draws no any-state node where no composite needs one', () => {
    expect(
      renderChart('sample', createMachine({ id: 'flat', initial: 'a', states: { a: {} } })),
    ).not.toContain('any state');
  });
});

describe('guards', () => {
  it('finds guards written inline, which a chart cannot name', () => {
    const machine = setup({ guards: { isReady: () => true } }).createMachine({
      id: 'g',
      initial: 'a',
      states: {
        a: { on: { go: { guard: () => true, target: 'b' }, stay: { guard: not('isReady') } } },
        b: { always: { guard: not(() => false), target: 'a' } },
      },
    });
    expect(inlineGuards(machine)).toEqual(['a: go', 'b: always']);
    expect(renderChart('g', machine)).toContain('go [inline]');
  });

  it('every registered machine names its guards', () => {
    expect(
      [...Object.entries(machines), ...Object.entries(serverMachines)].flatMap(([name, machine]) =>
        inlineGuards(machine).map((where) => `${name} ${where}`),
      ),
    ).toEqual([]);
  });
});

describe('renderOverview', () => {
  const child = createMachine({ id: 'child' });
  const item = createMachine({ id: 'item' });
  const parent = setup({ actors: { child, row: item } }).createMachine({
    id: 'parent',
    initial: 'open',
    states: { open: { invoke: { src: 'child' } } },
  });
  const overview = renderOverview({ parent, child, item });

  it('draws an invoked machine with a solid arrow and a spawned one with a dashed arrow', () => {
    expect(overview).toContain('m_parent -->|invokes| m_child');
    expect(overview).toContain('m_parent -.->|spawns as row| m_item');
  });

  it('names the machines that no machine runs', () => {
    expect(overview).toContain('Started by the app: `parent`.');
  });

  it("lists the server's machines, each linked to its chart in docs/charts/server", () => {
    const deploy = createMachine({ id: 'deploy', description: 'A deploy.' });
    const withServer = renderOverview({ parent, child, item }, { deploy });
    expect(withServer).toContain('- [`deploy`](server/deploy.md): A deploy.');
    expect(overview).not.toContain('## Server');
  });
});
