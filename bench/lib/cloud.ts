/**
 * The benchmark's local cloud: one `npm start`-equivalent process on a temporary state
 * directory (its gateway serves figure 6), plus this process pointed at the same emulators so
 * it can import the real consumer and route handlers and call them directly (figures 1–4).
 *
 * Fan-out and delivery messages produced here go to bench-only queues, never to the cloud's
 * own deliveries queue, so the cloud's pollers do not deliver them a second time.
 */
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { clientEnvironment } from '../../infra/local/env';
import { localQueueUrl } from '../../infra/local/sqs';
import { loadStage, stageEnvironment } from '../../infra/stages';
import { dlqEnvVar, queueEnvVar } from '../../shared/catalog/queues';
import { LOCAL_DESTINATION_ENDPOINT_ENV } from '../../shared/webhooks/aws/credentials';
import { type RunningCloud, startCloudProcess } from '../../test/support/local-cloud-process';

export interface BenchCloud {
  cloud: RunningCloud;
  sqs: SQSClient;
  /** Bench-only queue that receives what the imported fan-out handler enqueues. */
  deliveriesUrl: string;
  /** The cloud's stage trace of figure 20's notifications (infra/local/stage-trace.ts). */
  stageTraceFile: string;
  /** Makes another bench-only queue (the cloud's pollers never read it) and answers its URL. */
  queue(name: string): Promise<string>;
  /** Copies the cloud's log out of its state directory (removed at stop); answers the copy's path. */
  keepLog(): string;
  stop(): Promise<void>;
}

/** What figure 20's notifications carry in their text: the cloud traces the batches that hold it. */
export const STAGE_TRACE_MARK = 'figure20:';

export async function startBenchCloud(): Promise<BenchCloud> {
  const stateDir = mkdtempSync(join(tmpdir(), 'causeway-bench-'));
  const stageTraceFile = join(stateDir, 'stage-trace.jsonl');
  const stage = loadStage('local');
  const cloud = await startCloudProcess({
    stateDir,
    timeoutMs: 120_000,
    // Quiet handler logs (the latency figure would otherwise measure log writing), and DynamoDB
    // Local's JVM and the history layout as `npm start` has them, not with the suite's settings.
    // Only batches holding figure 20's mark are traced (nothing else pays for it).
    env: {
      LOG_LEVEL: 'WARN',
      JAVA_TOOL_OPTIONS: '',
      // The stage's history write shards (the suite's clouds write fewer): the figures price the
      // reads a stage makes.
      HISTORY_WRITE_SHARDS: String(stage.historyWriteShards),
      LOCAL_STAGE_TRACE: stageTraceFile,
      LOCAL_STAGE_TRACE_MARK: STAGE_TRACE_MARK,
    },
  });
  Object.assign(process.env, clientEnvironment(cloud.endpoints), stageEnvironment('local', stage), {
    LOCAL_MASTER_KEY_FILE: join(stateDir, 'master.key'),
    SANDBOX_DIR: join(stateDir, 'sandbox'),
    // Webhook destinations (figure 17) reach the cloud's sandbox account, as its consumers do.
    [LOCAL_DESTINATION_ENDPOINT_ENV]: cloud.endpoints.sandboxAccount.endpoint,
    POWERTOOLS_SERVICE_NAME: 'causeway-bench',
    POWERTOOLS_LOG_LEVEL: 'WARN',
    POWERTOOLS_METRICS_DISABLED: 'true',
  });
  const sqs = new SQSClient({});
  const make = async (name: string) =>
    localQueueUrl(
      cloud.endpoints.sqs,
      (
        await sqs.send(
          new CreateQueueCommand({ QueueName: `causeway-bench-${name}-${randomUUID().slice(0, 8)}` }),
        )
      ).QueueUrl as string,
    );
  const deliveriesUrl = await make('deliveries');
  process.env[queueEnvVar('deliveries')] = deliveriesUrl;
  process.env[dlqEnvVar('deliveries')] = await make('deliveries-dlq');
  return {
    cloud,
    sqs,
    deliveriesUrl,
    stageTraceFile,
    queue: make,
    keepLog() {
      const dir = join(import.meta.dirname, '..', '..', 'node_modules', '.cache', 'causeway-bench');
      mkdirSync(dir, { recursive: true });
      const kept = join(dir, `cloud-${new Date().toISOString().replace(/[:.]/g, '-')}.log`);
      copyFileSync(cloud.logFile, kept);
      return kept;
    },
    async stop() {
      sqs.destroy();
      await cloud.stop();
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
}

/** An SQS record as the Lambda event source mapping hands it over. */
export function sqsRecord(
  body: string,
  options: { receiptHandle?: string; receiveCount?: number } = {},
): SQSRecord {
  const now = String(Date.now());
  return {
    messageId: randomUUID(),
    receiptHandle: options.receiptHandle ?? `bench-${randomUUID()}`,
    body,
    attributes: {
      ApproximateReceiveCount: String(options.receiveCount ?? 1),
      SentTimestamp: now,
      SenderId: 'bench',
      ApproximateFirstReceiveTimestamp: now,
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:bench',
    awsRegion: 'us-east-1',
  };
}

export function sqsEvent(records: SQSRecord[]): SQSEvent {
  return { Records: records };
}
