import { type Config, ConfigError, loadConfig } from './config';

// Starts the server from the environment (server/main.ts loads this once the Node version is
// known to be good) and stops it cleanly on SIGTERM or SIGINT.

function configOrExit(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    // A mistyped setting is the operator's to fix: the line says which and how, a stack would not.
    for (const problem of error.problems) process.stderr.write(`Topoplay: ${problem}\n`);
    process.exit(1);
  }
}

/**
 * Past the grace period the app cuts what is still open (App.close); this is for a close that
 * hangs anyway (a database that does not answer), so that a stop never waits forever.
 */
const EXIT_MARGIN_MS = 5_000;

const config = configOrExit();
// Loaded once the settings are good, so that a bad one is reported alone and at once.
const { buildApp } = await import('./app');
const { app, seeded, close } = await buildApp(config);

await app.listen({ port: config.port, host: config.host });
app.log.info(`Topoplay is running at ${config.publicUrl}`);

if (seeded) {
  // Printed once, on the first start with an empty database.
  const lines = [
    '',
    `Topoplay first-run accounts (also in ${seeded.file}):`,
    ...seeded.accounts.map((a) => `  ${a.username.padEnd(10)} ${a.password}   (${a.role})`),
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

// One stop, whatever asks for it: Ctrl-C under `npm start` delivers SIGINT twice (npm forwards the
// terminal's to its child), and the second must not cut short the first one's graceful close.
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    app.log.info(`${signal}: shutting down`);
    setTimeout(() => {
      app.log.error('shutdown did not finish in time; exiting');
      process.exit(1);
    }, config.shutdownGraceMs + EXIT_MARGIN_MS).unref();
    close().then(
      () => process.exit(0),
      (error: unknown) => {
        app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  });
}
