/**
 * The Node.js releases Topoplay runs on, checked before anything else is loaded (server/main.ts,
 * scripts/start.mjs): on an older Node the first sign of trouble would otherwise be a syntax error
 * in a dependency or a native module built for another ABI, which says nothing about the cause.
 *
 * Plain JavaScript that any Node can parse, with no imports. package.json's `engines` says the same
 * (tests/server/release/build.test.ts checks that the two agree), and .npmrc's engine-strict makes
 * npm refuse to install on any other Node.
 */

/** The oldest supported release of each LTS line, newest line first. */
export const SUPPORTED_LINES = [
  [24, 15, 0],
  [22, 22, 2],
];

const compare = (a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/**
 * Why this Node cannot run Topoplay, as one line for the operator, or null when it can. A release
 * newer than the newest supported line is let through: Node keeps compatibility across majors far
 * better than an old release runs new code, and refusing it would block an upgrade.
 */
export function unsupportedNode(version) {
  const release = version
    .replace(/^v/, '')
    .split('.')
    .map((part) => Number.parseInt(part, 10) || 0);
  while (release.length < 3) release.push(0);
  const [newest] = SUPPORTED_LINES;
  const line = SUPPORTED_LINES.find(([major]) => major === release[0]);
  const supported = line ? compare(release, line) >= 0 : release[0] > newest[0];
  if (supported) return null;
  const wanted = SUPPORTED_LINES.map(
    ([major, minor, patch]) => `${major} LTS (${major}.${minor}.${patch} or later)`,
  ).join(' or ');
  // The way out on machines whose Node is older (Debian 12 has 20): scripts/node24.sh installs
  // Node 24 from the npm registry into the checkout, for bash and zsh.
  return `Topoplay needs Node.js ${wanted}; this is Node ${release.join('.')}: run \`source scripts/node24.sh\`, then try again.`;
}
