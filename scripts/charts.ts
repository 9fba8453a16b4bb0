/**
 * npm run charts: writes every machine of src/machines/registry.ts as a Mermaid state diagram to
 * docs/charts/<name>.md, the overview of which machine runs which to docs/charts/overview.md, and
 * removes charts of machines that are no longer registered.
 */
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { machines } from '../src/machines/registry';
import { CHARTS_DIR, OVERVIEW_FILE, chartFileName, renderChart, renderOverview } from './chartsLib';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dir = path.join(root, CHARTS_DIR);

await mkdir(dir, { recursive: true });
const expected = new Set<string>([OVERVIEW_FILE]);
await writeFile(path.join(dir, OVERVIEW_FILE), renderOverview(machines));
console.log(`wrote ${path.join(CHARTS_DIR, OVERVIEW_FILE)}`);
for (const [name, machine] of Object.entries(machines)) {
  const file = chartFileName(name);
  expected.add(file);
  await writeFile(path.join(dir, file), renderChart(name, machine));
  console.log(`wrote ${path.join(CHARTS_DIR, file)}`);
}
for (const file of await readdir(dir)) {
  if (file.endsWith('.md') && !expected.has(file)) {
    await rm(path.join(dir, file));
    console.log(`removed ${path.join(CHARTS_DIR, file)} (no such machine)`);
  }
}
