import { readFileSync, rmSync } from 'node:fs';
import type { TestProject } from 'vitest/node';
import type { Endpoints } from '../../infra/local/cloud';
import { type RunningCloud, startCloudProcess } from './local-cloud-process';

declare module 'vitest' {
  export interface ProvidedContext {
    endpoints: Endpoints;
    adminApiKey: string;
    stateDir: string;
    logFile: string;
  }
}

/** Settings a tier's cloud runs with on top of the suite's (TEST_CLOUD_ENV). */
const TIER_CLOUD_ENV: Record<string, Record<string, string>> = {
  // rotation.test.ts waits the secret-overlap window out: 5 s is ten times what a test send right
  // after a rotation takes, where the browser tier's 15 s leaves room for a rotation clicked through.
  // parking.test.ts holds a disabled ordered webhook's key in the store after 2 s (a day in a stage).
  integration: { WEBHOOK_SECRET_OVERLAP_SECONDS: '5', ORDERED_HOLD_AFTER_SECONDS: '2' },
};

let cloud: RunningCloud | undefined;
let tier = '';

/**
 * The 500s a tier's cloud answered, with their causes: its log (and state directory) is removed
 * after the run, so a test that met a 500 in CI would otherwise leave nothing to read.
 */
function reportUnhandledErrors(logFile: string): void {
  let log: string;
  try {
    log = readFileSync(logFile, 'utf8');
  } catch {
    return;
  }
  const lines = log.split('\n').filter((line) => line.includes('"message":"unhandled error"'));
  if (lines.length === 0) return;
  process.stderr.write(
    `the ${tier} tier's local cloud answered ${lines.length} request(s) with a 500; the first causes:\n${lines.slice(0, 20).join('\n')}\n`,
  );
}

export async function setup(project: TestProject) {
  tier = project.name;
  cloud = await startCloudProcess({ env: TIER_CLOUD_ENV[project.name] ?? {} });
  project.provide('endpoints', cloud.endpoints);
  project.provide('adminApiKey', cloud.adminApiKey);
  project.provide('stateDir', cloud.stateDir);
  project.provide('logFile', cloud.logFile);
}

export async function teardown() {
  const code = await cloud?.stop();
  if (cloud) reportUnhandledErrors(cloud.logFile);
  if (code !== 0 && code !== undefined) throw new Error(`local cloud exited with code ${code}`);
  if (cloud) rmSync(cloud.stateDir, { recursive: true, force: true });
}
