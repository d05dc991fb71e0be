import { rmSync } from 'node:fs';
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
  integration: { WEBHOOK_SECRET_OVERLAP_SECONDS: '5' },
};

let cloud: RunningCloud | undefined;

export async function setup(project: TestProject) {
  cloud = await startCloudProcess({ env: TIER_CLOUD_ENV[project.name] ?? {} });
  project.provide('endpoints', cloud.endpoints);
  project.provide('adminApiKey', cloud.adminApiKey);
  project.provide('stateDir', cloud.stateDir);
  project.provide('logFile', cloud.logFile);
}

export async function teardown() {
  const code = await cloud?.stop();
  if (code !== 0 && code !== undefined) throw new Error(`local cloud exited with code ${code}`);
  if (cloud) rmSync(cloud.stateDir, { recursive: true, force: true });
}
