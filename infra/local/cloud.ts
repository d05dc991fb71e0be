/**
 * The local cloud: DynamoDB Local, the SQS emulator, the Step Functions runner, the queue
 * pollers and the HTTP gateway in one process, all built from the same catalogs CDK uses,
 * running the very same handlers with real AWS SDK clients pointed at the emulators.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { type InternalFunctionDef, internalFunctions } from '../../shared/catalog/functions';
import { type QueueDef, visibilityTimeoutSeconds } from '../../shared/catalog/queues';
import { type StreamConsumerDef, streamConsumers } from '../../shared/catalog/streams';
import { LOCAL_DESTINATION_ENDPOINT_ENV } from '../../shared/webhooks/aws/credentials';
import { loadStage, stageEnvironment } from '../stages';
import { startSandboxAccount } from './customer-account/sandbox-account';
import { ensureTables, localDynamoClient, startDynamoDbLocal } from './dynamodb';
import { type ClientEndpoints, clientEnvironment, localDeliveryPrincipalArn } from './env';
import { LocalGateway } from './gateway';
import { LocalInvokeEndpoint, localFunctionName } from './invoke-endpoint';
import { lockStateDir } from './lock';
import { EVENT_SOURCE_POLLERS, QueuePoller } from './pollers';
import { LocalScheduler } from './scheduler';
import { ensureQueues, localSqsClient, startSqs } from './sqs';
import { LocalStepFunctions } from './stepfunctions';
import { localStreamsClient, onDynamoWrites, StreamPoller } from './streams';

const LOCAL_PREFIX = 'causeway-local';

/** A queue's visibility timeout here: the catalog's (6 × its consumer's timeout) or a test cloud's. */
const visibilityOf = (def: QueueDef): number =>
  Number(process.env.LOCAL_QUEUE_VISIBILITY_SECONDS || visibilityTimeoutSeconds(def));

/** A queue consumer's timeout here: the catalog's, or a test cloud's shorter one. */
const consumerTimeoutOf = (def: QueueDef): number =>
  Math.min(def.consumer.timeoutSeconds, Number(process.env.LOCAL_CONSUMER_TIMEOUT_SECONDS || Infinity));

/** Stage settings a developer may override from the environment for `npm start`. */
const OVERRIDABLE = [
  'WEBHOOK_TIMEOUT_MS',
  'WEBHOOK_AWS_TIMEOUT_MS',
  'WEBHOOK_RETRY_SCHEDULE',
  'ALLOW_PRIVATE_TARGETS',
  'ALLOW_PRIVATE_INTEGRATION_HOSTS',
  'CONNECT_TIMEOUT_MS',
  'HISTORY_RETENTION_DAYS',
  'HISTORY_WRITE_SHARDS',
  'WEBHOOK_SECRET_OVERLAP_SECONDS',
  'WEBHOOK_AUTO_DISABLE_AFTER_SECONDS',
  'WEBHOOK_AUTO_DISABLE_MIN_ATTEMPTS',
  'WEBHOOK_RECOVER_USER_PER_HOUR',
  'WEBHOOK_RECOVER_ADMIN_PER_HOUR',
  'WEBHOOK_RECOVER_MAX_PER_JOB',
  'WEBHOOK_RECOVER_COOLDOWN_SECONDS',
  'ORDERED_HOLD_AFTER_SECONDS',
];

export interface LocalCloudOptions {
  stateDir: string;
  port: number;
  adminApiKey?: string;
  log?: (line: string) => void;
}

export interface Endpoints extends ClientEndpoints {
  gateway: string;
  /**
   * The sandbox AWS account (issue 40): `endpoint` is where customer clients call (STS, SQS,
   * SNS, EventBridge), `emulator` its own SQS/SNS emulator (the operator CLI's), `principalArn`
   * the stage's delivery principal its roles trust.
   */
  sandboxAccount: { endpoint: string; emulator: string; principalArn: string };
  adminKeyFile: string;
  pid: number;
}

export interface LocalCloud {
  endpoints: Endpoints;
  adminApiKey: string;
  adminKeyGenerated: boolean;
  stop(): Promise<void>;
}

function ensureSecretFile(path: string, make: () => string): string {
  if (!existsSync(path)) {
    writeFileSync(path, `${make()}\n`, { mode: 0o600 });
  }
  chmodSync(path, 0o600);
  return readFileSync(path, 'utf8').trim();
}

export async function startLocalCloud(options: LocalCloudOptions): Promise<LocalCloud> {
  const stateDir = resolve(options.stateDir);
  mkdirSync(stateDir, { recursive: true });
  const log = options.log ?? (() => undefined);
  // Before anything in the directory is touched: a second cloud on it refuses here.
  const lock = lockStateDir(stateDir, log);
  const endpointsFile = join(stateDir, 'endpoints.json');
  rmSync(endpointsFile, { force: true });
  const stage = loadStage('local');
  const stops: (() => Promise<void>)[] = [
    async () => {
      rmSync(endpointsFile, { force: true });
      lock.release();
    },
  ];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  };

  try {
    // LOCAL_STORAGE=memory keeps tables and queues in memory: nothing survives a stop. For clouds
    // that never restart (the test suite's), where the file-backed stores' writes cost CPU the
    // tests need; `npm start` keeps its state in the state directory.
    const durable = process.env.LOCAL_STORAGE !== 'memory';
    const sandboxDir = join(stateDir, 'sandbox');
    mkdirSync(sandboxDir, { recursive: true });
    const principalArn = localDeliveryPrincipalArn('local');
    const [dynamo, sqs, sandboxAccount] = await Promise.all([
      startDynamoDbLocal(durable ? join(stateDir, 'dynamodb') : undefined),
      startSqs(durable ? join(stateDir, 'sqs') : undefined),
      startSandboxAccount({ dir: join(sandboxDir, 'aws'), durable, principalArn }),
    ]);
    stops.push(
      () => dynamo.stop(),
      () => sqs.stop(),
      () => sandboxAccount.stop(),
    );
    const ddbClient = localDynamoClient(dynamo.endpoint);
    const sqsClient = localSqsClient(sqs.endpoint);
    const [tableNames, queueList] = await Promise.all([
      ensureTables(ddbClient, LOCAL_PREFIX),
      ensureQueues(sqsClient, LOCAL_PREFIX, sqs.endpoint, visibilityOf),
    ]);
    for (const { def } of queueList) {
      const [visibility, timeout] = [visibilityOf(def), consumerTimeoutOf(def)];
      if (visibility <= timeout)
        log(
          `queue ${def.name}: visibility ${visibility} s is not longer than its consumer's timeout (${timeout} s): a message can come back while its invocation still runs, and be handled twice side by side (AWS keeps 6 × the timeout)`,
        );
    }

    const masterKeyFile = join(stateDir, 'master.key');
    ensureSecretFile(masterKeyFile, () => randomBytes(32).toString('base64'));

    // The environment every handler sees, as the CDK function wrapper sets it in AWS.
    const sfn = new LocalStepFunctions({ stateDir, prefix: LOCAL_PREFIX, retryIntervalMs: 100 });
    const sfnEndpoint = await sfn.start();
    stops.push(() => sfn.stop());
    const lambda = new LocalInvokeEndpoint(LOCAL_PREFIX);
    const lambdaEndpoint = await lambda.start();
    stops.push(() => lambda.stop());
    const clientEndpoints = {
      dynamodb: dynamo.endpoint,
      sqs: sqs.endpoint,
      stepfunctions: sfnEndpoint,
      region: 'us-east-1',
      tables: tableNames,
      queues: Object.fromEntries(queueList.map((q) => [q.def.name, { url: q.url, dlqUrl: q.dlqUrl }])),
      stateMachines: sfn.arns(),
      lambda: lambdaEndpoint,
      functions: Object.fromEntries(
        (internalFunctions as readonly InternalFunctionDef[]).map((f) => [
          f.name,
          localFunctionName(LOCAL_PREFIX, f.name),
        ]),
      ),
      deliveryPrincipalArn: localDeliveryPrincipalArn('local'),
    };
    const env: Record<string, string> = {
      ...clientEnvironment(clientEndpoints),
      ...stageEnvironment('local', stage),
      LOCAL_MASTER_KEY_FILE: masterKeyFile,
      SANDBOX_DIR: sandboxDir,
      // Customer clients (webhook destinations, ADR 0019) reach the sandbox account; unset in AWS.
      [LOCAL_DESTINATION_ENDPOINT_ENV]: sandboxAccount.endpoint,
      POWERTOOLS_SERVICE_NAME: 'causeway',
      POWERTOOLS_LOG_LEVEL: process.env.LOG_LEVEL ?? 'INFO',
      POWERTOOLS_METRICS_NAMESPACE: 'Causeway',
      // Metrics are EMF lines on stdout: in the local cloud's output as they would be in CloudWatch
      // Logs (the benchmarks turn them off).
      POWERTOOLS_METRICS_DISABLED: process.env.POWERTOOLS_METRICS_DISABLED ?? 'false',
    };
    for (const name of OVERRIDABLE) {
      const value = process.env[name];
      if (value !== undefined && value !== '') env[name] = value;
    }
    Object.assign(process.env, env);
    // State from before ADR 0008 keeps working: its secrets are sealed again, bound, once (before
    // any execution resumes and reads them).
    const { resealSecrets } = await import('../../shared/service/reseal-secrets');
    const resealed = await resealSecrets();
    if (resealed.integrations.resealed + resealed.webhooks.resealed > 0)
      log(`secrets sealed again, bound to their records (ADR 0008): ${JSON.stringify(resealed)}`);
    // Executions interrupted by a crash resume only now that handlers have their environment.
    sfn.resumeInterrupted();

    // Admin bootstrap (needs the env above: the auth module builds its clients on import).
    const adminKeyFile = join(stateDir, 'admin-api-key');
    const { ensureAdminKey, generateApiKey } = await import('../../shared/auth/keys');
    let adminKeyGenerated = false;
    const adminApiKey =
      options.adminApiKey ??
      ensureSecretFile(adminKeyFile, () => {
        adminKeyGenerated = true;
        return generateApiKey();
      });
    if (options.adminApiKey) writeFileSync(adminKeyFile, `${options.adminApiKey}\n`, { mode: 0o600 });
    await ensureAdminKey(adminApiKey);
    // State from before ADR 0006 keeps working: its history moves to the new layout once.
    const { legacyHistoryPresent, migrateLegacyHistory } = await import(
      '../../shared/webhooks/store/history-migration'
    );
    if (await legacyHistoryPresent()) {
      log(`moving the history of ${stateDir} to the layout of ADR 0006 (once)`);
      const report = await migrateLegacyHistory({ deleteSource: true });
      log(`history moved: ${JSON.stringify(report)}`);
    }

    const pollers = await Promise.all(
      queueList.map(async (queue) => {
        const attrs = await sqsClient.send(
          new GetQueueAttributesCommand({ QueueUrl: queue.url, AttributeNames: ['QueueArn'] }),
        );
        return new QueuePoller({
          client: sqsClient,
          queue,
          queueArn: attrs.Attributes?.QueueArn ?? queue.url,
          functionName: `${LOCAL_PREFIX}-${queue.def.name}-consumer`,
          concurrency: EVENT_SOURCE_POLLERS,
          // A test cloud's shorter consumer timeout: the invocation's deadline comes sooner, and
          // with it the leases a consumer holds for as long as it may run (a recover job's re-sends).
          timeoutSeconds: consumerTimeoutOf(queue.def),
          onError: (error) =>
            log(`poller ${queue.def.name}: ${(error as Error)?.name}: ${(error as Error)?.message}`),
        });
      }),
    );
    for (const poller of pollers) poller.start();
    stops.push(async () => {
      await Promise.all(pollers.map((p) => p.stop()));
    });

    // The stream consumers (history counts), as Lambda's DynamoDB event source runs them.
    const streamsClient = localStreamsClient(dynamo.endpoint);
    const streamPollers = (streamConsumers as readonly StreamConsumerDef[]).map(
      (def) =>
        new StreamPoller({
          dynamodb: ddbClient,
          streams: streamsClient,
          tableName: tableNames[def.table] ?? def.table,
          def,
          functionName: `${LOCAL_PREFIX}-${def.name}-consumer`,
          stateDir,
          idleMs: Number(process.env.LOCAL_STREAM_POLL_MS ?? 250),
          quietMs: Number(process.env.LOCAL_STREAM_QUIET_POLL_MS ?? 1000),
          onError: (error) =>
            log(`stream ${def.name}: ${(error as Error)?.name}: ${(error as Error)?.message}`),
        }),
    );
    for (const poller of streamPollers) poller.start();
    const stopWaking = onDynamoWrites(dynamo.endpoint, () => {
      for (const poller of streamPollers) poller.wake();
    });
    stops.push(async () => {
      stopWaking();
      await Promise.all(streamPollers.map((p) => p.stop()));
      streamsClient.destroy();
      ddbClient.destroy();
    });

    const scheduler = new LocalScheduler(
      LOCAL_PREFIX,
      (def) =>
        def.localInterval
          ? 1000 * Number(process.env[def.localInterval.env] ?? def.localInterval.defaultSeconds)
          : Number(process.env.LOCAL_SCHEDULE_INTERVAL_MS ?? 5000),
      (name, error) => log(`schedule ${name}: ${(error as Error)?.name}: ${(error as Error)?.message}`),
    );
    scheduler.start();
    stops.push(async () => scheduler.stop());

    const gateway = new LocalGateway({
      prefix: LOCAL_PREFIX,
      // The stage's (0 locally, so a revoked key stops working at once), unless
      // LOCAL_AUTHORIZER_CACHE_SECONDS asks for caching as API Gateway does on dev and prod.
      authorizerCacheSeconds: Number(
        process.env.LOCAL_AUTHORIZER_CACHE_SECONDS || stage.authorizerCacheSeconds,
      ),
    });
    const gatewayUrl = await gateway.listen(options.port);
    stops.push(() => gateway.close());

    const endpoints: Endpoints = {
      gateway: gatewayUrl,
      ...clientEndpoints,
      sandboxAccount: { endpoint: sandboxAccount.endpoint, emulator: sandboxAccount.emulator, principalArn },
      adminKeyFile,
      pid: process.pid,
    };
    // Written whole, then renamed into place: the CLI and the test clouds wait for this file to
    // exist and read it at once, and a plain write let them read it empty (seen under load).
    writeFileSync(`${endpointsFile}.tmp`, `${JSON.stringify(endpoints, null, 2)}\n`);
    renameSync(`${endpointsFile}.tmp`, endpointsFile);

    let stopped: Promise<void> | undefined;
    return {
      endpoints,
      adminApiKey,
      adminKeyGenerated,
      stop: () => {
        stopped ??= (async () => {
          await stopAll();
          sqsClient.destroy();
        })();
        return stopped;
      },
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
