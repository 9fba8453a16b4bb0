import { buildApp } from '../../server/app';
import { loadConfig } from '../../server/config';

// One server process for the multi-process hub tests (hubRedis.test.ts): the real server built
// from the environment. Prints `READY <port>` once listening; SIGTERM closes it cleanly.

const config = loadConfig(process.env);
const app = await buildApp(config, { logger: false });
await app.app.listen({ port: config.port, host: config.host });
process.stdout.write(`READY ${config.port}\n`);

process.once('SIGTERM', () => {
  app.close().then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(`${String(error)}\n`);
      process.exit(1);
    },
  );
});
