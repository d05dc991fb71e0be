/**
 * The SQS emulator (npm `fauxqs`, library mode) persisted in the state directory, listening on
 * 127.0.0.1 only, and queue creation from the queue catalog: each queue gets its DLQ and the
 * redrive policy, retention and visibility timeout that CDK gives it in AWS.
 */
import { mkdirSync } from 'node:fs';
import { type ListenOptions, Server } from 'node:net';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  SetQueueAttributesCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { startFauxqs } from 'fauxqs';
import { type QueueDef, queues, visibilityTimeoutSeconds } from '../../shared/catalog/queues';
import { withoutSdkLogging } from '../../shared/config/sdk-clients';
import { emulatorClientConfig } from './env';

export interface LocalSqs {
  endpoint: string;
  stop(): Promise<void>;
}

const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '']);

/**
 * Runs `start` with every listen on a wildcard address made on 127.0.0.1 instead. fauxqs
 * (2.x) listens on `0.0.0.0` whatever its `host` option says (that option only names queue
 * URLs), which would put the unauthenticated emulator on every interface of the machine.
 * Its server is created and bound inside `startFauxqs`, so the bind is redirected for the
 * duration of that call only, and only for listens given an options object with a wildcard
 * host (the way its HTTP framework listens).
 */
async function onLoopback<T>(start: () => Promise<T>): Promise<T> {
  const listen = Server.prototype.listen;
  const redirected = function (this: Server, ...args: unknown[]) {
    const [options] = args;
    if (typeof options === 'object' && options !== null && !Array.isArray(options)) {
      const host = (options as ListenOptions).host;
      if (host !== undefined && WILDCARD_HOSTS.has(host)) args[0] = { ...options, host: '127.0.0.1' };
    }
    return (listen as (...a: unknown[]) => Server).apply(this, args);
  };
  Server.prototype.listen = redirected as typeof listen;
  try {
    return await start();
  } finally {
    Server.prototype.listen = listen;
  }
}

/**
 * fauxqs 2.4.1 (the newest) persists a message made visible again by `ChangeMessageVisibility`
 * with timeout 0 as `approximate_receive_count = NULL`, which its own schema refuses (NOT NULL):
 * the write throws after the message left its in-flight set and before it is queued again, so
 * with a state directory (`npm start`, the crash tests) the message is lost until a restart, and
 * the SDK's retry of the call answers `MessageNotInflight`. A retry "at once" (`retryIn(0)`: a
 * keyed fan-out holding its head, a drain going on with its next entry) always hit it. Its
 * persistence is replaced here by the same statement that keeps the count (in memory nothing is
 * written). Remove once fauxqs fixes `updateMessageReady`.
 */
async function keepReceiveCountOnRelease(): Promise<void> {
  const persistence = (await import(new URL('persistence.js', import.meta.resolve('fauxqs')).href)) as {
    PersistenceManager: { prototype: { updateMessageReady(messageId: string): void } };
  };
  persistence.PersistenceManager.prototype.updateMessageReady = function (
    this: {
      db: { prepare(sql: string): { run(...values: unknown[]): unknown } };
    },
    messageId: string,
  ) {
    this.db
      .prepare(
        'UPDATE sqs_messages SET receipt_handle = NULL, visibility_deadline = NULL WHERE message_id = ?',
      )
      .run(messageId);
  };
}

/** The queue emulator, its messages kept in `dataDir` (SQLite) or in memory (`undefined`). */
export async function startSqs(dataDir: string | undefined): Promise<LocalSqs> {
  if (dataDir !== undefined) {
    mkdirSync(dataDir, { recursive: true });
    await keepReceiveCountOnRelease();
  }
  const server = await onLoopback(() => startFauxqs({ port: 0, logger: false, host: '127.0.0.1', dataDir }));
  return { endpoint: `http://127.0.0.1:${server.port}`, stop: () => server.stop() };
}

export function localSqsClient(endpoint: string): SQSClient {
  return withoutSdkLogging(new SQSClient(emulatorClientConfig(endpoint)));
}

export interface LocalQueue {
  def: QueueDef;
  url: string;
  dlqUrl: string;
}

/** A FIFO queue's name ends in `.fifo`, as SQS requires (its DLQ's too). */
function physicalQueueName(prefix: string, name: string, fifo: boolean): string {
  return `${prefix}-${name}${fifo ? '.fifo' : ''}`;
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
 * Creates (or finds) every cataloged queue and its DLQ and sets their attributes from the
 * catalog, so a changed catalog applies to an existing state directory as a deploy would.
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
      const fifo = def.fifo === true;
      const fifoAttributes: Record<string, string> = fifo ? { FifoQueue: 'true' } : {};
      const dlq = await client.send(
        new CreateQueueCommand({
          QueueName: physicalQueueName(prefix, `${def.name}-dlq`, fifo),
          Attributes: { ...fifoAttributes, MessageRetentionPeriod: String(14 * 24 * 3600) },
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
        new CreateQueueCommand({
          QueueName: physicalQueueName(prefix, def.name, fifo),
          Attributes: fifo
            ? {
                ...fifoAttributes,
                DeduplicationScope: 'messageGroup',
                FifoThroughputLimit: 'perMessageGroupId',
              }
            : {},
        }),
      );
      if (!queue.QueueUrl) throw new Error(`no URL for the ${def.name} queue`);
      const url = localQueueUrl(endpoint, queue.QueueUrl);
      await client.send(
        new SetQueueAttributesCommand({
          QueueUrl: url,
          Attributes: {
            VisibilityTimeout: String(visibilitySeconds(def)),
            MessageRetentionPeriod: String(def.retentionSeconds),
            // No redrive where the consumer dead-letters by itself (the catalog says why).
            ...(def.maxReceiveCount === undefined
              ? {}
              : {
                  RedrivePolicy: JSON.stringify({
                    deadLetterTargetArn: dlqAttributes.Attributes?.QueueArn,
                    maxReceiveCount: def.maxReceiveCount,
                  }),
                }),
          },
        }),
      );
      return { def, url, dlqUrl: localQueueUrl(endpoint, dlq.QueueUrl) };
    }),
  );
}
