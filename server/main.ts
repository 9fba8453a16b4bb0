import { buildApp } from './app';
import { loadConfig } from './config';

const config = loadConfig();
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
