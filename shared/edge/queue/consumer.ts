/**
 * The queue-consumer edge (ADR 0014): `queueConsumer` is the Lambda handler of every SQS consumer.
 *
 *   export const handler = queueConsumer({
 *     queue: 'deliveries',
 *     message: { schema: QueuedDeliverySchema, what: 'delivery message' },
 *     attemptsBefore,
 *     handle: deliver,
 *   });
 *
 * Each concern is a middleware wrapped around the next: the batch's metrics (written once as it
 * ends), the line per batch (when asked for or noted to), the batch's partial response (every
 * failure reported and logged with its reason), the records' sends and reads pooled into shared calls
 * (../../store/batch-pool.ts), the records run by message group (./groups.ts),
 * and per record what the handler answered, the message parsed with the queue's schema and the
 * attempt context (./middlewares.ts). The handler returns what happens
 * next (./contract.ts) and never touches the queue.
 */
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { type QueueName, queueDef } from '../../catalog/queues';
import { type BatchNotes, inBatch } from '../../observability/batch-notes';
import { describeError, logger } from '../../observability/logger';
import { metricsPerInvocation } from '../../observability/metrics';
import { pooledRecord, withBatchPool } from '../../store/batch-pool';
import { changeVisibility } from '../../store/queues';
import type { MessageHandler } from './contract';
import { runByGroup } from './groups';
import {
  type AttemptSource,
  attemptContext,
  type MessageSpec,
  nextStep,
  parsedMessage,
  type RecordResult,
  receiveCountOf,
} from './middlewares';

export interface ConsumerDefinition<T> extends AttemptSource<T> {
  queue: QueueName;
  message: MessageSpec<T>;
  handle: MessageHandler<T>;
  /**
   * Log one line per batch (`<queue> batch`: messages, failures, durationMs), for consumers whose
   * invocations are few and worth counting (the periodic checks). Any other consumer's batch has
   * the line only when its records noted facts for it (a delivered attempt's delivery id).
   */
  logBatches?: boolean;
}

type LambdaContext = Pick<Context, 'getRemainingTimeInMillis'>;
type BatchRun = (event: SQSEvent, lambda: LambdaContext) => Promise<RecordResult[]>;

/** Reports every record that did not finish as a batch item failure, each logged with its reason. */
function partialBatchResponse(queue: QueueName, inner: BatchRun) {
  return async (event: SQSEvent, lambda: LambdaContext): Promise<SQSBatchResponse> => {
    const results = await inner(event, lambda);
    for (const result of results) logFailure(queue, result);
    return {
      batchItemFailures: results
        .filter((r) => r.kind !== 'done')
        .map((r) => ({ itemIdentifier: r.record.messageId })),
    };
  };
}

function logFailure(queue: QueueName, result: RecordResult): void {
  const ids = { queue, messageId: result.record.messageId, receiveCount: receiveCountOf(result.record) };
  switch (result.kind) {
    case 'done':
      return;
    case 'retry':
      logger.info('batch item failure: retry scheduled', {
        ...ids,
        delaySeconds: result.delaySeconds,
        reason: result.reason,
      });
      return;
    case 'held':
      logger.info('batch item failure: behind a failed message of its group', {
        ...ids,
        groupId: result.record.attributes.MessageGroupId,
        head: result.head.record.messageId,
        // `the invocation ends before it could run`: given back at once, in order (./groups.ts).
        ...(result.head.kind === 'retry' ? { headReason: result.head.reason } : {}),
      });
      return;
    case 'failed':
      logger.error('batch item failure: the message comes back after its visibility timeout', {
        ...ids,
        ...describeError(result.error),
      });
  }
}

type BatchHandler = (event: SQSEvent, lambda: LambdaContext) => Promise<SQSBatchResponse>;

/**
 * One log line per batch, when the consumer asks for it or its records noted facts for it
 * (`noteInBatch`: a delivered attempt is named there rather than in a line of its own). Written
 * also when the batch throws (then every message comes back: `failures` is all of them).
 */
function batchSummary(queue: QueueName, always: boolean, inner: BatchHandler): BatchHandler {
  return async (event, lambda) => {
    const started = Date.now();
    const notes: BatchNotes = new Map();
    let response: SQSBatchResponse | undefined;
    try {
      response = await inBatch(notes, () => inner(event, lambda));
      return response;
    } finally {
      if (always || notes.size > 0)
        logger.info(`${queue} batch`, {
          messages: event.Records.length,
          failures: response ? response.batchItemFailures.length : event.Records.length,
          durationMs: Date.now() - started,
          ...Object.fromEntries(notes),
        });
    }
  };
}

/**
 * The metrics the batch's records record, written as the batch ends (thrown or not): one EMF
 * document per metric group and dimension values, not one per record (../../observability/metrics.ts).
 */
function metricsPerBatch(inner: BatchHandler): BatchHandler {
  return (event, lambda) => metricsPerInvocation(() => inner(event, lambda));
}

/**
 * Records held behind a head whose retry was scheduled come back with it: a FIFO group's
 * messages in flight hold the whole group, so they get the head's delay rather than the queue's
 * visibility timeout. If that fails they come back after the timeout, still in order.
 */
async function holdWithTheirHead(queue: QueueName, results: readonly RecordResult[]): Promise<void> {
  const byDelay = new Map<number, string[]>();
  for (const result of results)
    if (result.kind === 'held' && result.head.kind === 'retry')
      byDelay.set(result.head.delaySeconds, [
        ...(byDelay.get(result.head.delaySeconds) ?? []),
        result.record.receiptHandle,
      ]);
  for (const [delaySeconds, handles] of byDelay) {
    try {
      await changeVisibility(queue, handles, delaySeconds);
    } catch (error) {
      logger.warn('held messages keep their visibility timeout', { queue, ...describeError(error) });
    }
  }
}

/**
 * A FIFO group's next record starts only while at least 1/GROUP_RUN_SHARE of the consumer's
 * timeout is left (./groups.ts): 15 s of the delivery consumers' 60 s, which covers a webhook's
 * 10 s timeout and the record's writes.
 */
const GROUP_RUN_SHARE = 4;

export function queueConsumer<T>(definition: ConsumerDefinition<T>) {
  const { queue } = definition;
  const processRecord = nextStep(
    queue,
    parsedMessage(definition.message, attemptContext(queue, definition, definition.handle)),
  );
  const reserveMs = (queueDef(queue).consumer.timeoutSeconds * 1000) / GROUP_RUN_SHARE;
  const runBatch: BatchRun = async (event, lambda) => {
    // The records' pooled sends and reads go out together (../../store/batch-pool.ts).
    const results = await withBatchPool(() =>
      runByGroup(event.Records, (record) => pooledRecord(() => processRecord(record, lambda)), {
        timeLeft: () => lambda.getRemainingTimeInMillis(),
        reserveMs,
      }),
    );
    await holdWithTheirHead(queue, results);
    return results;
  };
  const handler = metricsPerBatch(
    batchSummary(queue, definition.logBatches ?? false, partialBatchResponse(queue, runBatch)),
  );
  // `processRecord`: one record through the whole edge (tests and benchmarks drive a consumer with it).
  return Object.assign(handler, { processRecord });
}
