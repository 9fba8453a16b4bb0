// Runs npm scripts side by side and fails when any of them fails: `node scripts/concurrently.mjs
// lint typecheck`, or in groups one after another: `check test:unit --then test:e2e`. npm test uses
// it twice: for the checks that each keep one core busy (ESLint and Prettier, tsc), and to run the
// checks beside the unit tests, then the end-to-end tests (docs/performance.md, "The test suite":
// all three side by side kept the two cores of this machine at a load of 17 and had tests miss
// their waits). Each script's output is held and printed whole when it ends, so that they never
// interleave; every script runs to its end, so that one run shows every failure, and the run ends
// with a recap of the failed ones.
import { spawn } from 'node:child_process';

// `--then` ends a group: the groups run one after another, the scripts of each side by side, and
// every group runs whatever the one before did, so that one run still shows every failure.
const groups = [[]];
for (const arg of process.argv.slice(2)) {
  if (arg === '--then') groups.push([]);
  else groups.at(-1).push(arg);
}
if (groups.some((group) => group.length === 0)) {
  console.error('usage: node scripts/concurrently.mjs <npm script> ... [--then <npm script> ...]');
  process.exit(2);
}

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const run = (name) =>
  new Promise((resolve) => {
    const started = Date.now();
    const chunks = [];
    const child = spawn(npm, ['run', '--silent', name], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        FORCE_COLOR: process.env.FORCE_COLOR ?? (process.stdout.isTTY ? '1' : '0'),
      },
    });
    child.stdout.on('data', (chunk) => chunks.push(chunk));
    child.stderr.on('data', (chunk) => chunks.push(chunk));
    let ended = false;
    const finish = (code, error) => {
      if (ended) return;
      ended = true;
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const verdict = code === 0 ? 'passed' : `failed (${error ?? `exit code ${code}`})`;
      process.stdout.write(`\n> npm run ${name}: ${verdict} in ${seconds} s\n`);
      process.stdout.write(Buffer.concat(chunks));
      resolve({ name, passed: code === 0, verdict, output: Buffer.concat(chunks).toString() });
    };
    child.on('error', (error) => finish(1, error.message));
    child.on('close', (code, signal) => finish(code ?? 1, signal ? `signal ${signal}` : undefined));
  });

const results = [];
for (const group of groups) results.push(...(await Promise.all(group.map(run))));
const failed = results.filter((result) => !result.passed);
// A failure scrolls far up behind the scripts that end after it, and a CI log is often read from
// its tail: end with each failed script's failing lines and its own last lines.
if (failed.length > 0) {
  // eslint-disable-next-line no-control-regex
  const plain = (line) => line.replace(/\x1b\[[0-9;]*m/g, '');
  process.stdout.write(`\n> failed: ${failed.map((result) => result.name).join(', ')}\n`);
  for (const { name, verdict, output } of failed) {
    const lines = output.split('\n').map(plain);
    // Vitest's FAIL and × lines, Playwright's ✘ and numbered ones, and the errors under them.
    const failing = lines
      .filter((line) => /^\s*(FAIL\b|×|✘|\d+\) )|^\s*\w*Error:/.test(line))
      .slice(0, 30);
    process.stdout.write(`\n> npm run ${name}: ${verdict}; its failing lines:\n`);
    process.stdout.write(`${failing.join('\n')}\n> and its last lines:\n`);
    process.stdout.write(`${lines.slice(-15).join('\n')}\n`);
  }
}
process.exit(failed.length === 0 ? 0 : 1);
