/**
 * Starts the local cloud as `npm start` does — a separate process running `infra/local/main.ts`,
 * here from the suite's build of the sources (./prebuilt.ts) — on a fresh state directory and a
 * free port, and waits until it has written its endpoints file. Its stdout/stderr go to
 * `<stateDir>/cloud.log` so tests can read every log line the handlers wrote.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, openSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Endpoints } from '../../infra/local/cloud';
import { PREBUILT_NODE_OPTIONS, prebuiltDir, prebuiltEntry } from './prebuilt';
import { SHARED_STAGE_SETTINGS } from './suite-settings';
import { tempDir } from './temp';

const repoRoot = join(import.meta.dirname, '..', '..');

export interface RunningCloud {
  process: ChildProcess;
  stateDir: string;
  logFile: string;
  endpoints: Endpoints;
  adminApiKey: string;
  /** SIGTERM and wait for a clean exit. */
  stop(): Promise<number | null>;
  /** SIGKILL, as a crash would. */
  kill(): Promise<void>;
}

/**
 * Settings the integration suite runs with: short timeouts and retry schedule for speed, and no
 * periodic integration checks during a run (files that test them start a cloud of their own with
 * a short interval; a check round over every file's integrations would only add load).
 */
const TEST_CLOUD_ENV: Record<string, string> = {
  ...SHARED_STAGE_SETTINGS,
  WEBHOOK_TIMEOUT_MS: '1500',
  // AWS destinations' calls (STS, the send into the sandbox account's queue) are answered by the
  // cloud's own process, which a loaded machine can keep busy past 1.5 s (a webhook's creation
  // was refused with AssumeRole's TimeoutError in a full run): 15 s only guards against a hang.
  WEBHOOK_AWS_TIMEOUT_MS: '15000',
  WEBHOOK_RETRY_SCHEDULE: '1,1,2',
  // Long enough for a test send right after a rotation to fall inside it, short enough to wait out.
  WEBHOOK_SECRET_OVERLAP_SECONDS: '15',
  LOG_LEVEL: 'INFO',
  INTEGRATION_CHECK_INTERVAL_SECONDS: '86400',
  // A recover budget a test can spend with a few dozen seeded deliveries (admins keep the stage's),
  // and a cool-down short enough to wait out.
  WEBHOOK_RECOVER_USER_PER_HOUR: '40',
  WEBHOOK_RECOVER_COOLDOWN_SECONDS: '10',
  // DynamoDB Local's JVM with the client compiler only and one GC thread: a suite starts a dozen
  // clouds on two cores, and each spent ~9 CPU-seconds starting (C2 compiling, parallel GC
  // threads) against ~5.7 like this, with no more CPU for the requests that follow.
  JAVA_TOOL_OPTIONS: '-XX:TieredStopAtLevel=1 -XX:+UseSerialGC',
};

export async function startCloudProcess(
  options: {
    stateDir?: string;
    env?: Record<string, string>;
    timeoutMs?: number;
    /**
     * Tables and queues in the state directory, as `npm start` keeps them, for a cloud that is
     * restarted on its state (the crash tests). Otherwise in memory (LOCAL_STORAGE=memory): the
     * file-backed stores' writes cost CPU the suite needs, and nothing else reads them.
     */
    durable?: boolean;
  } = {},
): Promise<RunningCloud> {
  // A fresh state directory, removed after the test file (or by the caller, see global-setup).
  const stateDir = options.stateDir ?? tempDir('causeway-test-');
  const logFile = join(stateDir, 'cloud.log');
  const endpointsFile = join(stateDir, 'endpoints.json');
  // A cloud that was killed leaves its endpoints behind; wait for the new process's file.
  rmSync(endpointsFile, { force: true });
  const out = openSync(logFile, 'a');
  // One process (no wrapper process): SIGKILL really kills the cloud. It runs the cloud's and the
  // handlers' sources bundled once per run (./prebuilt.ts), not through tsx.
  const entry = await prebuiltEntry('infra/local/main.ts');
  const child = spawn(process.execPath, [...PREBUILT_NODE_OPTIONS, entry], {
    cwd: repoRoot,
    env: {
      ...process.env,
      ...TEST_CLOUD_ENV,
      LOCAL_HANDLER_MODULES: await prebuiltDir(),
      ...(options.durable ? {} : { LOCAL_STORAGE: 'memory' }),
      ...options.env,
      STATE_DIR: stateDir,
      PORT: '0',
    },
    stdio: ['ignore', out, out],
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  while (!existsSync(endpointsFile)) {
    if (child.exitCode !== null) {
      throw new Error(
        `local cloud exited with ${child.exitCode}: ${readFileSync(logFile, 'utf8').slice(-2000)}`,
      );
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`local cloud not ready: ${readFileSync(logFile, 'utf8').slice(-2000)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const endpoints = JSON.parse(readFileSync(endpointsFile, 'utf8')) as Endpoints;
  const adminApiKey = readFileSync(endpoints.adminKeyFile, 'utf8').trim();
  return {
    process: child,
    stateDir,
    logFile,
    endpoints,
    adminApiKey,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
    async kill() {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
