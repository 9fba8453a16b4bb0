/** Types of scripts/bundleSize.mjs for the TypeScript tests. */

export interface MeasuredFile {
  /** Path relative to the dist folder, with forward slashes. */
  file: string;
  raw: number;
  gzip: number;
}

export interface Totals {
  raw: number;
  gzip: number;
}

export interface BundleReport {
  js: MeasuredFile[];
  total: Totals;
  css: MeasuredFile[];
  cssTotal: Totals;
  budgetGzipBytes: number;
  overBudget: boolean;
}

export const REFERENCE_GZIP_KB: number;
export const BUDGET_GZIP_KB: number;
export const BUDGET_GZIP_BYTES: number;
export const BUDGET_LINE: string;

export function htmlAssets(html: string): {
  scripts: string[];
  modulePreloads: string[];
  stylesheets: string[];
};
export function staticImports(code: string): string[];
export function measureBundle(distDir: string): Promise<BundleReport>;
export function formatReport(report: BundleReport): string;
export function budgetError(report: BundleReport): string | null;
