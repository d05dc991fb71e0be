/**
 * `npm start`: runs the local cloud until Ctrl-C / SIGTERM, then stops everything (the
 * DynamoDB Local JVM included) and exits.
 *
 * Environment: STATE_DIR (default .causeway), PORT (default 3000; 0 picks a free port),
 * ADMIN_API_KEY (register this key as the admin), WEBHOOK_TIMEOUT_MS, WEBHOOK_RETRY_SCHEDULE,
 * ALLOW_PRIVATE_TARGETS, ALLOW_PRIVATE_INTEGRATION_HOSTS, LOG_LEVEL.
 */
import { join } from 'node:path';
import { startLocalCloud } from './cloud';

const stateDir = process.env.STATE_DIR || '.causeway';
const port = Number(process.env.PORT ?? 3000);
const started = Date.now();
const say = (line: string) => process.stderr.write(`[causeway] ${line}\n`);

const cloud = await startLocalCloud({
  stateDir,
  port,
  adminApiKey: process.env.ADMIN_API_KEY || undefined,
  log: say,
}).catch((error: Error) => {
  say(`failed to start: ${error.message}`);
  process.exit(1);
});

say(`ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
say(`API:        ${cloud.endpoints.gateway}`);
say(
  `admin key:  ${cloud.adminApiKey}${cloud.adminKeyGenerated ? ' (generated; saved in ' : ' (saved in '}${cloud.endpoints.adminKeyFile})`,
);
say(`state:      ${stateDir} (endpoints in ${join(stateDir, 'endpoints.json')})`);
say(`try:        curl -s ${cloud.endpoints.gateway}/health`);

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  say(`${signal}: stopping`);
  const force = setTimeout(() => process.exit(1), 15_000);
  force.unref();
  await cloud.stop();
  say('stopped');
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
