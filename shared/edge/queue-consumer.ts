/**
 * The queue consumers' edge. `sqsConsumer` turns a per-record function into a Lambda SQS
 * handler with Powertools' BatchProcessor: records run concurrently (one slow receiver does not
 * delay the others) and a record that throws is reported as a batch item failure, never failing
 * the others. Every batch item failure is logged with its reason: a scheduled retry at info
 * level, anything else (the message comes back after its visibility timeout) as an error.
 * `parseOrDeadLetter` is the first step of each consumer: a body that is not JSON or not the
 * queue's message goes to the queue's DLQ with the reason, and is not retried.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import type * as z from 'zod';
import type { QueueName } from '../catalog/queues';
import { describeError, logger } from '../observability/logger';
import { sendToDeadLetter } from '../store/queues';
import { describeIssues } from '../validation';

/** Thrown by a record whose failure is planned (its retry was scheduled): logged as info, not an error. */
export class RetryScheduledError extends Error {
  override name = 'RetryScheduledError';
}

export interface ConsumerOptions {
  /**
   * Log one line per batch (`<queue> batch`: messages, failures, durationMs), for consumers whose
   * invocations are few and worth counting (the periodic checks), not the delivery pipeline's.
   */
  logBatches?: boolean;
}

export function sqsConsumer(
  queue: QueueName,
  processRecord: (record: SQSRecord, context?: Context) => Promise<unknown>,
  options: ConsumerOptions = {},
) {
  const recordHandler = async (record: SQSRecord, context?: Context): Promise<void> => {
    try {
      await processRecord(record, context);
    } catch (error) {
      const receiveCount = Number(record.attributes.ApproximateReceiveCount) || 1;
      if (error instanceof RetryScheduledError) {
        logger.info('batch item failure: retry scheduled', {
          queue,
          messageId: record.messageId,
          receiveCount,
          reason: error.message,
        });
      } else {
        logger.error('batch item failure: the message comes back after its visibility timeout', {
          queue,
          messageId: record.messageId,
          receiveCount,
          ...describeError(error),
        });
      }
      throw error;
    }
  };
  // One processor per invocation: a processor holds the batch's state, and the local cloud
  // runs concurrent invocations of a module in one process.
  return async (event: SQSEvent, context: Context) => {
    const started = Date.now();
    const response = await processPartialResponse(event, recordHandler, new BatchProcessor(EventType.SQS), {
      context,
      processInParallel: true,
      // A batch whose every record scheduled a retry is not an error of the function.
      throwOnFullBatchFailure: false,
    });
    if (options.logBatches)
      logger.info(`${queue} batch`, {
        messages: event.Records.length,
        failures: response.batchItemFailures.length,
        durationMs: Date.now() - started,
      });
    return response;
  };
}

/** The record's message, or undefined after dead-lettering it as a malformed `what`. */
export async function parseOrDeadLetter<T>(
  queue: QueueName,
  record: SQSRecord,
  schema: z.ZodType<T>,
  what: string,
): Promise<T | undefined> {
  let json: unknown;
  try {
    json = JSON.parse(record.body);
  } catch {
    json = undefined;
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return parsed.data;
  const reason = json === undefined ? 'body is not JSON' : describeIssues(parsed.error.issues);
  await sendToDeadLetter(queue, record.body, `malformed ${what}: ${reason}`);
  logger.warn(`malformed ${what} dead-lettered`, { messageId: record.messageId });
  return undefined;
}
