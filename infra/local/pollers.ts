/**
 * Queue pollers that behave like the Lambda SQS event source mapping: receive up to
 * `batchSize` messages, invoke the consumer with an SQS event, delete what succeeded and leave
 * the `batchItemFailures` (or the whole batch, if the handler throws) to come back after their
 * visibility timeout; the queue's redrive policy moves them to the DLQ after
 * `maxReceiveCount` receives. Batches are handed over as soon as a receive answers (no batching
 * window) and run side by side, as many as the mapping would (EVENT_SOURCE_POLLERS).
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

/**
 * How a queue is polled and its batches run, as Lambda's event source mapping does for a standard
 * queue: long polls that hand a batch over as soon as messages are available, up to five batches
 * at once while messages come, scaled back to as few as two when traffic is low (AWS Lambda
 * Developer Guide, "Configuring scaling behavior for SQS event source mappings"). Here two loops
 * long-poll each queue; a loop hands the batch it received to an invocation and polls again at
 * once, while fewer than five of the queue's batches run (at five it waits for one to end before
 * it receives more, and the messages stay in the queue). A poll never waits for another batch's
 * slowest record. Lambda goes on adding pollers while a backlog lasts (up to 1,000 batches); one
 * machine stops at five. More long-polling loops would not be more faithful here: the emulator
 * wakes every waiting receive for each message and answers all but one empty (figure 20).
 */
export const EVENT_SOURCE_POLLERS = { receivers: 2, batches: 5 } as const;

export interface PollerOptions {
  client: SQSClient;
  queue: LocalQueue;
  queueArn: string;
  functionName: string;
  /** Loops long-polling the queue, and batches of it running at once, at most. */
  concurrency: { receivers: number; batches: number };
  /** The consumer's timeout here, if shorter than the catalog's (a test cloud's LOCAL_CONSUMER_TIMEOUT_SECONDS). */
  timeoutSeconds?: number;
  onError?: (error: unknown) => void;
}

export class QueuePoller {
  private stopping = false;
  private readonly loops: Promise<void>[] = [];
  /** The batches running (invocation and deletes). */
  private readonly running = new Set<Promise<void>>();
  /** Loops waiting for a batch to end before they receive (all `batches` run). */
  private waiting: (() => void)[] = [];
  private readonly abort = new AbortController();

  constructor(private readonly options: PollerOptions) {}

  start(): void {
    for (let i = 0; i < this.options.concurrency.receivers; i++) this.loops.push(this.loop());
  }

  /** Resolves once fewer than `batches` of the queue's batches run. */
  private async slot(): Promise<void> {
    while (this.running.size >= this.options.concurrency.batches && !this.stopping)
      await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  private async loop(): Promise<void> {
    const { client, queue } = this.options;
    while (!this.stopping) {
      await this.slot();
      if (this.stopping) return;
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
      // The other loop may have started a batch meanwhile: the batches stay at most `batches`.
      await this.slot();
      const batch: Promise<void> = this.process(
        messages,
        traceReceived(queue.def.name, messages, asked),
      ).finally(() => {
        this.running.delete(batch);
        const next = this.waiting;
        this.waiting = [];
        for (const wake of next) wake();
      });
      this.running.add(batch);
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
    for (const wake of this.waiting) wake();
    this.waiting = [];
    await Promise.allSettled([...this.loops, ...this.running]);
  }
}
