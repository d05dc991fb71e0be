/**
 * Figures 3 and 4 in their own process (`tsx bench/counts.ts <out.json>`, started by
 * `bench/run.ts`): an in-memory DynamoDB Local and an SQS emulator of its own, the cataloged
 * tables, this process's shared modules pointed at them, then the fan-out and history counts.
 * A separate process because the shared DynamoDB client is built once, at import, for one
 * endpoint — the other figures use the local cloud's.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateQueueCommand } from '@aws-sdk/client-sqs';
import { ensureTables, localDynamoClient } from '../infra/local/dynamodb';
import { clientEnvironment, localDeliveryPrincipalArn } from '../infra/local/env';
import { localQueueUrl, localSqsClient, startSqs } from '../infra/local/sqs';
import { loadStage, stageEnvironment } from '../infra/stages';
import { fanOutCost, historyCost } from './cost';
import { startMemoryDynamo } from './lib/memory-dynamo';
import { ReadMeter } from './lib/reads';

const outFile = process.argv[2];
if (!outFile) throw new Error('usage: tsx bench/counts.ts <out.json> [fanOut,history]');
const wanted = new Set((process.argv[3] ?? 'fanOut,history').split(','));

const stateDir = mkdtempSync(join(tmpdir(), 'causeway-bench-counts-'));
const dynamo = await startMemoryDynamo();
const sqsServer = await startSqs(join(stateDir, 'sqs'));
try {
  const ddb = localDynamoClient(dynamo.endpoint);
  const tableNames = await ensureTables(ddb, 'bench');
  ddb.destroy();
  const sqs = localSqsClient(sqsServer.endpoint);
  const queue = async (name: string) =>
    localQueueUrl(
      sqsServer.endpoint,
      (await sqs.send(new CreateQueueCommand({ QueueName: `bench-${name}` }))).QueueUrl as string,
    );
  const queues = {
    notifications: { url: await queue('notifications'), dlqUrl: await queue('notifications-dlq') },
    deliveries: { url: await queue('deliveries'), dlqUrl: await queue('deliveries-dlq') },
  };
  const keyFile = join(stateDir, 'master.key');
  writeFileSync(keyFile, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
  Object.assign(
    process.env,
    clientEnvironment({
      dynamodb: dynamo.endpoint,
      sqs: sqsServer.endpoint,
      stepfunctions: 'http://127.0.0.1:9',
      lambda: 'http://127.0.0.1:9',
      region: 'us-east-1',
      tables: tableNames,
      queues,
      stateMachines: {},
      functions: {},
      deliveryPrincipalArn: localDeliveryPrincipalArn('local'),
    }),
    stageEnvironment('local', loadStage('local')),
    {
      LOCAL_MASTER_KEY_FILE: keyFile,
      POWERTOOLS_SERVICE_NAME: 'causeway-bench',
      POWERTOOLS_LOG_LEVEL: 'WARN',
      POWERTOOLS_METRICS_DISABLED: 'true',
    },
  );
  const { dynamodb } = await import('../shared/store/clients');
  const meter = new ReadMeter();
  meter.install(dynamodb);
  const results: Record<string, unknown> = {};
  if (wanted.has('fanOut')) {
    process.stderr.write('[bench counts] 3. fan-out: 10 webhooks, then 10,000 (5 match)\n');
    results.fanOut = await fanOutCost({ meter, sqs, queueUrl: queues.deliveries.url });
  }
  if (wanted.has('history')) {
    process.stderr.write('[bench counts] 4. history: seeding 1,000 + 100,000 records\n');
    results.history = await historyCost({ meter });
  }
  writeFileSync(outFile, JSON.stringify(results));
  sqs.destroy();
} finally {
  await sqsServer.stop();
  dynamo.stop();
  rmSync(stateDir, { recursive: true, force: true });
}
process.exit(0);
