/**
 * Queue pollers that behave like the Lambda SQS event source mapping: receive up to
 * `batchSize` messages, invoke the consumer with an SQS event, delete what succeeded and leave
 * the `batchItemFailures` (or the whole batch, if the handler throws) to come back after their
 * visibility timeout; the queue's redrive policy moves them to the DLQ after
 * `maxReceiveCount` receives.
 */
import {
  DeleteMessageBatchCommand,
  type Message,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { QueueName } from '../../shared/catalog/queues';
import { invoke } from './lambda';
import type { LocalQueue } from './sqs';
import { type BatchTrace, traceReceived, traceStep } from './stage-trace';

/** Concurrent batches per queue: the local cloud's event source mappings (and figure 20's floor loops). */
export const EVENT_SOURCE_POLLERS = 2;

export interface PollerOptions {
  client: SQSClient;
  queue: LocalQueue;
  queueArn: string;
  functionName: string;
  /** Concurrent batches in flight for this queue (Lambda scales pollers; one machine keeps it small). */
  concurrency: number;
  /** The consumer's timeout, if shorter than the catalog's (LOCAL_CONSUMER_TIMEOUT_SECONDS). */
  timeoutSeconds?: number;
  onError?: (error: unknown) => void;
}

export class QueuePoller {
  private stopping = false;
  private readonly loops: Promise<void>[] = [];
  private readonly abort = new AbortController();

  constructor(private readonly options: PollerOptions) {}

  start(): void {
    for (let i = 0; i < this.options.concurrency; i++) this.loops.push(this.loop());
  }

  private async loop(): Promise<void> {
    const { client, queue } = this.options;
    while (!this.stopping) {
      let messages: Message[] = [];
      const asked = Date.now();
      try {
        const out = await client.send(
          new ReceiveMessageCommand({
            QueueUrl: queue.url,
            MaxNumberOfMessages: queue.def.consumer.batchSize,
            // Long polls of SQS's longest wait, as Lambda's event source mapping makes them: a
            // message is answered the moment it is visible either way, and an idle queue costs one
            // receive per 20 s instead of one per second (two loops on each of the queues, in every
            // local cloud of a test run: ~3 % of a core per idle cloud).
            WaitTimeSeconds: 20,
            MessageSystemAttributeNames: ['All'],
            MessageAttributeNames: ['All'],
          }),
          { abortSignal: this.abort.signal },
        );
        messages = out.Messages ?? [];
      } catch (error) {
        if (this.stopping) return;
        this.options.onError?.(error);
        await new Promise((r) => setTimeout(r, 500));
        continue;
      }
      if (messages.length === 0) continue;
      await this.process(messages, traceReceived(queue.def.name, messages, asked));
    }
  }

  private async process(messages: Message[], trace: BatchTrace | undefined): Promise<void> {
    const event: SQSEvent = { Records: messages.map((m) => this.toRecord(m)) };
    let failed: Set<string>;
    try {
      const response = await traceStep(trace, 'invoke', () => this.invoke(event));
      failed = new Set((response?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
    } catch (error) {
      this.options.onError?.(error);
      return; // whole batch becomes visible again after the visibility timeout
    }
    const done = messages.filter((m) => m.MessageId && !failed.has(m.MessageId));
    await traceStep(trace, 'delete', () => this.delete(done));
  }

  private invoke(event: SQSEvent): Promise<SQSBatchResponse | undefined> {
    const { queue } = this.options;
    return invoke<SQSBatchResponse | undefined>(
      {
        handler: queue.def.consumer.handler,
        name: this.options.functionName,
        timeoutSeconds: Math.min(
          queue.def.consumer.timeoutSeconds,
          this.options.timeoutSeconds ?? Number.POSITIVE_INFINITY,
        ),
        access: queue.def.consumer,
        consumes: queue.def.name as QueueName,
      },
      event,
    );
  }

  private async delete(done: readonly Message[]): Promise<void> {
    const { client, queue } = this.options;
    for (let i = 0; i < done.length; i += 10) {
      const chunk = done.slice(i, i + 10);
      await client
        .send(
          new DeleteMessageBatchCommand({
            QueueUrl: queue.url,
            Entries: chunk.map((m, j) => ({ Id: String(j), ReceiptHandle: m.ReceiptHandle })),
          }),
        )
        .catch((error: unknown) => this.options.onError?.(error));
    }
  }

  private toRecord(message: Message): SQSRecord {
    const attributes = message.Attributes ?? {};
    return {
      messageId: message.MessageId ?? '',
      receiptHandle: message.ReceiptHandle ?? '',
      body: message.Body ?? '',
      attributes: {
        ApproximateReceiveCount: attributes.ApproximateReceiveCount ?? '1',
        SentTimestamp: attributes.SentTimestamp ?? String(Date.now()),
        SenderId: attributes.SenderId ?? 'local',
        ApproximateFirstReceiveTimestamp: attributes.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
        // A FIFO queue's message: its group (the consumer edge runs a group's messages in order).
        ...(attributes.MessageGroupId !== undefined
          ? {
              MessageGroupId: attributes.MessageGroupId,
              SequenceNumber: attributes.SequenceNumber,
              MessageDeduplicationId: attributes.MessageDeduplicationId,
            }
          : {}),
      },
      messageAttributes: Object.fromEntries(
        Object.entries(message.MessageAttributes ?? {}).map(([k, v]) => [
          k,
          {
            dataType: v.DataType ?? 'String',
            stringValue: v.StringValue,
            stringListValues: [],
            binaryListValues: [],
          },
        ]),
      ),
      md5OfBody: message.MD5OfBody ?? '',
      eventSource: 'aws:sqs',
      eventSourceARN: this.options.queueArn,
      awsRegion: 'us-east-1',
    };
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.abort.abort();
    await Promise.allSettled(this.loops);
  }
}
