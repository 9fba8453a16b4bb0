import { type Config, ConfigError, loadConfig } from './config';

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

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    app.log.info(`${signal}: shutting down`);
    close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
