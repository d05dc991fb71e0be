/**
 * The operator CLI (`npm run cli`) as a separate process on a local cloud's state directory, as an
 * operator runs it. Asynchronous on purpose: a test that blocked its event loop while the CLI ran
 * (spawnSync) would miss the gateway closing its idle keep-alive connections, and its next
 * request would fail with "other side closed".
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { PREBUILT_NODE_OPTIONS, prebuiltEntry } from './prebuilt';

const repoRoot = join(import.meta.dirname, '..', '..');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export async function runCli(stateDir: string, args: readonly string[], input?: string): Promise<CliRun> {
  // The CLI's sources bundled once per run (./prebuilt.ts), as `npm run cli` runs them through tsx.
  const entry = await prebuiltEntry('infra/cli/main.ts');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...PREBUILT_NODE_OPTIONS, entry, ...args], {
      cwd: repoRoot,
      env: { ...process.env, STATE_DIR: stateDir },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}
