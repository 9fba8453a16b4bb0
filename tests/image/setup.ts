import { execFileSync, spawnSync } from 'node:child_process';
import { CACHE, docker, dockerLoud, ensureEngine, ROOT } from './docker';

// Before the checks: an engine that answers, the base images the Dockerfile and compose.yaml name
// (stand-ins where no registry has them), and the image itself, built from this checkout.

/** The image the checks run; compose.yaml runs it too (TOPOPLAY_IMAGE). */
export const IMAGE = process.env.TOPOPLAY_CHECK_IMAGE ?? 'topoplay:check';

export default async function setup() {
  const started = await ensureEngine();

  const standins = spawnSync('bash', ['deploy/standins/build.sh'], {
    cwd: ROOT,
    stdio: 'inherit',
    env: { ...process.env, TOPOPLAY_STANDIN_CACHE: CACHE },
  });
  if (standins.status !== 0) throw new Error('deploy/standins/build.sh failed');

  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
    cwd: ROOT,
    encoding: 'utf8',
  }).trim();
  const began = Date.now();
  console.log(`check:image: docker build -t ${IMAGE} (COMMIT=${commit})`);
  dockerLoud(['build', '--build-arg', `COMMIT=${commit}`, '-t', IMAGE, '.']);
  const bytes = Number(docker(['image', 'inspect', '--format', '{{.Size}}', IMAGE]));
  console.log(
    `check:image: ${IMAGE} built in ${Math.round((Date.now() - began) / 1000)} s, ` +
      `${Math.round(bytes / 1e6)} MB`,
  );
  process.env.TOPOPLAY_CHECK_IMAGE = IMAGE;
  process.env.TOPOPLAY_CHECK_COMMIT = commit;

  return () => {
    // An engine the check started is stopped again; one that was running stays as it was.
    if (started !== null) {
      process.kill(started, 'SIGTERM');
      console.log(`check:image: stopped dockerd (pid ${started})`);
    }
  };
}
