/**
 * npm run charts: writes every machine of src/machines/registry.ts as a Mermaid state diagram to
 * docs/charts/<name>.md, every machine of server/machines.ts to docs/charts/server/<name>.md, the
 * overview of which machine runs which to docs/charts/overview.md, and removes charts of machines
 * that are no longer registered.
 */
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AnyStateMachine } from 'xstate';
import { serverMachines } from '../server/machines';
import { machines } from '../src/machines/registry';
import {
  CHARTS_DIR,
  OVERVIEW_FILE,
  SERVER_CHARTS_DIR,
  chartFileName,
  renderChart,
  renderOverview,
} from './chartsLib';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Writes the charts of `registered` (and any `extra` pages) to `relDir`, removing the rest. */
async function writeCharts(
  relDir: string,
  registered: Readonly<Record<string, AnyStateMachine>>,
  extra: Readonly<Record<string, string>> = {},
): Promise<void> {
  const dir = path.join(root, relDir);
  await mkdir(dir, { recursive: true });
  const pages = new Map<string, string>(Object.entries(extra));
  for (const [name, machine] of Object.entries(registered)) {
    pages.set(chartFileName(name), renderChart(name, machine));
  }
  for (const [file, text] of pages) {
    await writeFile(path.join(dir, file), text);
    console.log(`wrote ${path.join(relDir, file)}`);
  }
  for (const file of await readdir(dir)) {
    if (file.endsWith('.md') && !pages.has(file)) {
      await rm(path.join(dir, file));
      console.log(`removed ${path.join(relDir, file)} (no such machine)`);
    }
  }
}

await writeCharts(CHARTS_DIR, machines, {
  [OVERVIEW_FILE]: renderOverview(machines, serverMachines),
});
await writeCharts(SERVER_CHARTS_DIR, serverMachines);
