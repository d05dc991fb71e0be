/**
 * The record middlewares of the queue-consumer edge (ADR 0014), outermost first: `nextStep` does
 * what the handler answered, `parsedMessage` turns the body into the queue's message,
 * `attemptContext` tells the handler which attempt it is making. Each wraps the next one, as a
 * middy middleware wraps the handler; they are typed functions because the record becomes a
 * message on the way in.
 */
import type { Context, SQSRecord } from 'aws-lambda';
import type * as z from 'zod/mini';
import type { QueueName } from '../../catalog/queues';
import { logger } from '../../observability/logger';
import { changeVisibility, sendDelayed, sendToDeadLetter } from '../../store/queues';
import { describeIssues } from '../../validation';
import { deadLetter, type MessageContext, type MessageHandler, type Next } from './contract';

/** What became of one record of a batch. */
export type RecordResult =
  | { kind: 'done'; record: SQSRecord; result?: unknown }
  /** A planned retry: the record's visibility was set to `delaySeconds`. */
  | { kind: 'retry'; record: SQSRecord; delaySeconds: number; reason: string }
  /** Failed (thrown): the record comes back after its visibility timeout. */
  | { kind: 'failed'; record: SQSRecord; error: unknown }
  /** Not run: an earlier record of its FIFO group (`head`) failed. */
  | { kind: 'held'; record: SQSRecord; head: RecordResult & { kind: 'retry' | 'failed' } };

export type RecordRun = (
  record: SQSRecord,
  lambda: Pick<Context, 'getRemainingTimeInMillis'>,
) => Promise<Next>;

/** The receive count SQS reports (at least 1). */
export const receiveCountOf = (record: SQSRecord): number =>
  Math.max(1, Number(record.attributes.ApproximateReceiveCount) || 1);

/** Does what the handler answered; a throw anywhere inside is a `failed` record. */
export function nextStep(
  queue: QueueName,
  inner: RecordRun,
): (record: SQSRecord, lambda: Pick<Context, 'getRemainingTimeInMillis'>) => Promise<RecordResult> {
  return async (record, lambda) => {
    try {
      const next = await inner(record, lambda);
      switch (next.kind) {
        case 'done':
          return next.result === undefined
            ? { kind: 'done', record }
            : { kind: 'done', record, result: next.result };
        case 'retry':
          await changeVisibility(queue, [record.receiptHandle], next.delaySeconds);
          return { kind: 'retry', record, delaySeconds: next.delaySeconds, reason: next.reason };
        case 'sendAgain': {
          const groupId = record.attributes.MessageGroupId;
          if (groupId !== undefined && next.delaySeconds > 0)
            throw new Error(
              'SQS refuses a per-message delay on a FIFO queue: hold the head of the group with a retry instead',
            );
          await sendDelayed(
            queue,
            JSON.stringify(next.body),
            next.delaySeconds,
            groupId === undefined ? undefined : { groupId, deduplicationId: `${record.messageId}-again` },
          );
          logger.info('message sent again', {
            queue,
            messageId: record.messageId,
            delaySeconds: next.delaySeconds,
            reason: next.reason,
          });
          return next.result === undefined
            ? { kind: 'done', record }
            : { kind: 'done', record, result: next.result };
        }
        case 'deadLetter': {
          const groupId = record.attributes.MessageGroupId;
          await sendToDeadLetter(
            queue,
            record.body,
            next.reason,
            groupId === undefined ? undefined : { groupId, deduplicationId: record.messageId },
          );
          logger.warn('message dead-lettered', { queue, messageId: record.messageId, reason: next.reason });
          return { kind: 'done', record };
        }
      }
    } catch (error) {
      return { kind: 'failed', record, error };
    }
  };
}

/** The queue's message schema, or one chosen by the body's shape; `what` names it in reasons. */
export type MessageSpec<T> =
  | { schema: z.ZodMiniType<T>; what: string }
  | ((json: unknown) => { schema: z.ZodMiniType<T>; what: string });

/** Parses the body; a body that is not JSON or not the queue's message is dead-lettered with the reason. */
export function parsedMessage<T>(
  spec: MessageSpec<T>,
  inner: (message: T, record: SQSRecord, lambda: Pick<Context, 'getRemainingTimeInMillis'>) => Promise<Next>,
): RecordRun {
  return async (record, lambda) => {
    let json: unknown;
    try {
      json = JSON.parse(record.body);
    } catch {
      json = undefined;
    }
    const { schema, what } = typeof spec === 'function' ? spec(json) : spec;
    const parsed = schema.safeParse(json);
    if (parsed.success) return inner(parsed.data, record, lambda);
    const reason = json === undefined ? 'body is not JSON' : describeIssues(parsed.error.issues);
    return deadLetter(`malformed ${what}: ${reason}`);
  };
}

/** Where a consumer's attempt numbers come from. */
export interface AttemptSource<T> {
  /** Standard queues: attempts made before this message was sent (a message sent again carries them). */
  attemptsBefore?: (message: T) => number;
  /** FIFO queues: the attempt number, from the consumer's own count (the receive count cannot tell). */
  attemptOf?: (message: T, ids: { messageId: string; groupId: string }) => Promise<number>;
  /**
   * FIFO queues whose handler takes no attempt number from the edge — the fan-out decides nothing
   * by it (its steps' leases in the store tell a step taken over), the ordered delivery counts
   * from the history it reads anyway: the context's attempt is the receive count, an upper bound.
   */
  attemptsUnused?: true;
}

/** Gives the handler its context: the attempt, whether the message came before, the deadline. */
export function attemptContext<T>(
  queue: QueueName,
  source: AttemptSource<T>,
  handle: MessageHandler<T>,
): (message: T, record: SQSRecord, lambda: Pick<Context, 'getRemainingTimeInMillis'>) => Promise<Next> {
  return async (message, record, lambda) => {
    const receiveCount = receiveCountOf(record);
    const { MessageGroupId: groupId, AWSTraceHeader: traceHeader, SentTimestamp } = record.attributes;
    let attempt: number;
    if (groupId === undefined) attempt = (source.attemptsBefore?.(message) ?? 0) + receiveCount;
    else if (source.attemptOf)
      attempt = await source.attemptOf(message, { messageId: record.messageId, groupId });
    else if (source.attemptsUnused) attempt = receiveCount;
    else
      throw new Error(
        `the ${queue} consumer got a FIFO message and counts no attempts of its own: on a FIFO queue the receive count also counts messages returned behind a failed head`,
      );
    const sentAt = Number(SentTimestamp);
    const context: MessageContext = {
      attempt,
      redelivered: receiveCount > 1,
      deadline: Date.now() + lambda.getRemainingTimeInMillis(),
      messageId: record.messageId,
      ...(groupId !== undefined ? { groupId } : {}),
      ...(Number.isSafeInteger(sentAt) && sentAt > 0 ? { sentAt } : {}),
      ...(traceHeader ? { traceHeader } : {}),
    };
    return handle(message, context);
  };
}
