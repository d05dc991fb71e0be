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

let cloud: RunningCloud | undefined;

export async function setup(project: TestProject) {
  cloud = await startCloudProcess();
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
