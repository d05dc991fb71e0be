/**
 * The SQS emulator (npm `fauxqs`, library mode) persisted in the state directory, and queue
 * creation from the queue catalogue: each queue gets its DLQ and the redrive policy, retention
 * and visibility timeout that CDK gives it in AWS.
 */
import { mkdirSync } from 'node:fs';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  SetQueueAttributesCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { startFauxqs } from 'fauxqs';
import { type QueueDef, queues, visibilityTimeoutSeconds } from '../../shared/catalog/queues';

export interface LocalSqs {
  endpoint: string;
  stop(): Promise<void>;
}

export async function startSqs(dataDir: string): Promise<LocalSqs> {
  mkdirSync(dataDir, { recursive: true });
  const server = await startFauxqs({ port: 0, logger: false, host: '127.0.0.1', dataDir });
  return { endpoint: `http://127.0.0.1:${server.port}`, stop: () => server.stop() };
}

export function localSqsClient(endpoint: string): SQSClient {
  return new SQSClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
}

export interface LocalQueue {
  def: QueueDef;
  url: string;
  dlqUrl: string;
}

function physicalQueueName(prefix: string, name: string): string {
  return `${prefix}-${name}`;
}

/**
 * fauxqs names queues `http://sqs.<region>.<host>:<port>/…`; with a loopback IP as host that is
 * not a parseable URL, and the SDK (which prefers a queue URL's host over the endpoint) would
 * warn on every call. The same queue answers on the emulator's own origin, so use that.
 */
export function localQueueUrl(endpoint: string, queueUrl: string): string {
  return new URL(queueUrl.replace(/^[a-z]+:\/\/[^/]+/, ''), endpoint).href;
}

/**
 * Creates (or finds) every catalogued queue and its DLQ and sets their attributes from the
 * catalogue, so a changed catalogue applies to an existing state directory as a deploy would.
 * `visibilitySeconds` lets the local cloud shorten the visibility timeout (for example so that a
 * crash-and-restart test sees in-flight messages return within seconds rather than minutes).
 */
export async function ensureQueues(
  client: SQSClient,
  prefix: string,
  endpoint: string,
  visibilitySeconds: (def: QueueDef) => number = visibilityTimeoutSeconds,
): Promise<LocalQueue[]> {
  return Promise.all(
    (queues as readonly QueueDef[]).map(async (def) => {
      const dlq = await client.send(
        new CreateQueueCommand({
          QueueName: physicalQueueName(prefix, `${def.name}-dlq`),
          Attributes: { MessageRetentionPeriod: String(14 * 24 * 3600) },
        }),
      );
      if (!dlq.QueueUrl) throw new Error(`no URL for the ${def.name} DLQ`);
      const dlqAttributes = await client.send(
        new GetQueueAttributesCommand({
          QueueUrl: localQueueUrl(endpoint, dlq.QueueUrl),
          AttributeNames: ['QueueArn'],
        }),
      );
      const queue = await client.send(
        new CreateQueueCommand({ QueueName: physicalQueueName(prefix, def.name) }),
      );
      if (!queue.QueueUrl) throw new Error(`no URL for the ${def.name} queue`);
      const url = localQueueUrl(endpoint, queue.QueueUrl);
      await client.send(
        new SetQueueAttributesCommand({
          QueueUrl: url,
          Attributes: {
            VisibilityTimeout: String(visibilitySeconds(def)),
            MessageRetentionPeriod: String(def.retentionSeconds),
            RedrivePolicy: JSON.stringify({
              deadLetterTargetArn: dlqAttributes.Attributes?.QueueArn,
              maxReceiveCount: def.maxReceiveCount,
            }),
          },
        }),
      );
      return { def, url, dlqUrl: localQueueUrl(endpoint, dlq.QueueUrl) };
    }),
  );
}
