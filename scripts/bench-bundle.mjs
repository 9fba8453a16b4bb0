#!/usr/bin/env node
/**
 * npm run bench:bundle: prints the JS (and, for information, CSS) that the home route loads up
 * front from the Vite build, and exits 1 when the gzipped JS exceeds the budget.
 *
 * Usage: node scripts/bench-bundle.mjs [distDir]   (default: dist next to this folder)
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { budgetError, formatReport, measureBundle } from './bundleSize.mjs';

const defaultDist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist');
const distDir = path.resolve(process.argv[2] ?? defaultDist);

try {
  const report = await measureBundle(distDir);
  console.log(formatReport(report));
  const error = budgetError(report);
  if (error !== null) {
    console.error(`\n${error}`);
    process.exitCode = 1;
  }
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
}
