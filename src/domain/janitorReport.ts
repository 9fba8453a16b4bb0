/**
 * What the admin reads above the janitor's report: how many findings, and whether anything was
 * deleted. With no findings it says that there is nothing to clean up, instead of an empty table.
 */
export function janitorSummary(findings: number, dryRun: boolean): string {
  if (findings === 0) {
    return dryRun
      ? 'Nothing to clean up: a run now would delete nothing.'
      : 'Nothing to clean up: nothing was deleted.';
  }
  const counted = `${findings} finding${findings === 1 ? '' : 's'}`;
  return dryRun ? `${counted} (dry run: nothing was deleted)` : counted;
}
