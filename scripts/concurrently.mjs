// Runs npm scripts at the same time and fails when any of them fails: `node scripts/concurrently.mjs
// lint typecheck`. npm test uses it twice: for the checks that each keep one core busy (ESLint and
// Prettier, tsc), and to run those checks, the unit tests and the end-to-end tests side by side,
// since the tests mostly wait (on servers, browsers, databases, machines) and one after another
// they left the two cores of this machine half idle. Each script's output is held and printed
// whole when it ends, so that they never interleave; every script runs to its end, so that one
// run shows every failure.
import { spawn } from 'node:child_process';

const names = process.argv.slice(2);
if (names.length === 0) {
  console.error('usage: node scripts/concurrently.mjs <npm script> [<npm script> ...]');
  process.exit(2);
}

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const runs = names.map(
  (name) =>
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
        resolve(code === 0);
      };
      child.on('error', (error) => finish(1, error.message));
      child.on('close', (code, signal) =>
        finish(code ?? 1, signal ? `signal ${signal}` : undefined),
      );
    }),
);

const passed = await Promise.all(runs);
process.exit(passed.every(Boolean) ? 0 : 1);
