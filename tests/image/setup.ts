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
  // The build stage is tagged too: it holds the installed packages that the next run reuses. What
  // an earlier run built under these tags goes, or every run would leave a gigabyte behind.
  // COMMIT is the final stage's only: the build stage would say it was not consumed.
  const stages = [
    { tag: `${IMAGE}-build`, args: ['--target', 'build'] },
    { tag: IMAGE, args: ['--build-arg', `COMMIT=${commit}`] },
  ];
  const imageId = (tag: string) => {
    try {
      return docker(['image', 'inspect', '--format', '{{.Id}}', tag]);
    } catch {
      return null;
    }
  };
  const earlier = stages.map(({ tag }) => imageId(tag));
  for (const { tag, args } of stages) dockerLoud(['build', ...args, '-t', tag, '.']);
  for (const [index, id] of earlier.entries()) {
    if (id && id !== imageId(stages[index]!.tag)) {
      try {
        docker(['image', 'rm', id]);
      } catch {
        // Still the parent of a cached layer, or in use: it goes with a later run.
      }
    }
  }
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
