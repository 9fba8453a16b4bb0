import { hostname } from 'node:os';
import { createAgent } from './agent.ts';

// The agent's entry point: `node agent/main.ts` (Node 24 runs TypeScript as it is), configured
// by the environment as the reference agent is (wire reference §4.12); DISPATCH_TIMEOUTSECONDS
// and DISPATCH_RETRYSECONDS are ours.

const env = process.env;
const required = (name: string): string => {
  const value = env[name];
  if (!value) {
    console.error(`${name} is required`);
    process.exit(2);
  }
  return value;
};
const seconds = (name: string, fallback: number) => {
  const n = Number(env[name]);
  return (Number.isFinite(n) && n > 0 ? n : fallback) * 1000;
};
const quiet = /^(1|true|yes)$/i.test(env.DISPATCH_QUIET ?? '');

const agent = createAgent({
  url: required('DISPATCH_URL'),
  apiKey: required('DISPATCH_APIKEY'),
  groupId: required('DISPATCH_GROUPID'),
  hostname: env.HOSTNAME || hostname(),
  timeoutMs: seconds('DISPATCH_TIMEOUTSECONDS', 60),
  maxRetryMs: seconds('DISPATCH_RETRYSECONDS', 30),
  heartbeatTrigger: env.DISPATCH_HEARTBEATTRIGGER ?? '',
  heartbeatMs: seconds('DISPATCH_HEARTBEATSECONDS', 0),
  log: (message) => {
    if (!quiet) console.log(`${new Date().toISOString()} ${message}`);
  },
});

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void agent.stop().finally(() => process.exit(0));
  });
}

await agent.start();
