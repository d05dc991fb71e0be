/**
 * The SQS side of the pipeline: enqueue deliveries, schedule a retry by message visibility,
 * and move a message to its queue's DLQ with the reason (as a message attribute).
 */
import {
  ChangeMessageVisibilityCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { dlqEnvVar, type QueueName, queueEnvVar } from '../../catalog/queues';
import { requireEnv } from '../../config/env';

// Queue URLs come from the catalogue env; the client's own endpoint is authoritative.
const sqs = new SQSClient({ useQueueUrlAsEndpoint: false });

/** Sends every body to the queue, ten per call, retrying entries SQS refused; throws if any remain. */
export async function sendAll(queue: QueueName, bodies: readonly string[]): Promise<void> {
  const url = requireEnv(queueEnvVar(queue));
  for (let i = 0; i < bodies.length; i += 10) {
    let entries = bodies.slice(i, i + 10).map((body, j) => ({ Id: String(j), MessageBody: body }));
    for (let round = 0; entries.length > 0; round++) {
      if (round === 4) throw new Error(`SQS refused ${entries.length} message(s) for ${queue}`);
      const out = await sqs.send(new SendMessageBatchCommand({ QueueUrl: url, Entries: entries }));
      const failed = new Set((out.Failed ?? []).map((f) => f.Id));
      entries = entries.filter((e) => failed.has(e.Id));
    }
  }
}

export async function delayRetry(queue: QueueName, receiptHandle: string, seconds: number): Promise<void> {
  await sqs.send(
    new ChangeMessageVisibilityCommand({
      QueueUrl: requireEnv(queueEnvVar(queue)),
      ReceiptHandle: receiptHandle,
      VisibilityTimeout: seconds,
    }),
  );
}

export async function sendToDeadLetter(queue: QueueName, body: string, reason: string): Promise<void> {
  await sqs.send(
    new SendMessageCommand({
      QueueUrl: requireEnv(dlqEnvVar(queue)),
      MessageBody: body.length > 0 ? body : '(empty)',
      MessageAttributes: {
        reason: { DataType: 'String', StringValue: reason.slice(0, 1000) },
        sourceQueue: { DataType: 'String', StringValue: queue },
      },
    }),
  );
}
