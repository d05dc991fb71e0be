/**
 * Notifications and their webhook deliveries: every queue of the queue catalog with its
 * dead-letter queue and Lambda consumer (fan-out, delivery), and the function catalog's
 * `capability: 'webhooks'` functions (the webhook sender manual retries invoke). The
 * integrations' connector and reconciler are `IntegrationFunctions`.
 *
 * Queues use SQS managed server-side encryption (SSE-SQS): messages are encrypted at rest with
 * keys SQS owns, with no KMS key policy to extend to every producer and consumer and no KMS
 * request charges or throttling on the delivery path. Message bodies carry ids and
 * notification payloads; secrets never travel through a queue.
 */
import { Duration } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { type QueueDef, queues, visibilityTimeoutSeconds } from '../../shared/catalog/queues';
import {
  type CapabilityFunctions,
  type CapabilityFunctionsProps,
  type CatalogSchedule,
  capabilityFunctions,
} from './catalog-functions';
import { acknowledge, CausewayFunction, removalPolicy } from './function';

/** The longest retention SQS allows; DLQ messages wait there for a human. */
const DLQ_RETENTION = Duration.days(14);

export interface NotificationsProps extends CapabilityFunctionsProps {
  /** @default every entry of the queue catalog */
  readonly queues?: readonly QueueDef[];
}

export interface CatalogQueue {
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;
  readonly consumer: CausewayFunction;
}

const pascal = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);

export class Notifications extends Construct implements CapabilityFunctions {
  /** Catalog name → queue, its DLQ and its consumer. */
  public readonly queues: ReadonlyMap<string, CatalogQueue>;
  /** Catalog name → internal function. */
  public readonly internalFunctions: ReadonlyMap<string, CausewayFunction>;
  /** Catalog name → scheduled function and its rule. */
  public readonly schedules: ReadonlyMap<string, CatalogSchedule>;

  constructor(scope: Construct, id: string, props: NotificationsProps) {
    super(scope, id);
    const removal = removalPolicy(props.stage);
    const common = { stage: props.stage, resources: props.resources, bundles: props.bundles };

    const createdQueues = new Map<string, CatalogQueue>();
    for (const def of props.queues ?? (queues as readonly QueueDef[])) {
      const name = pascal(def.name);
      // A FIFO queue's DLQ is FIFO too (SQS requires it), and the queue runs in high-throughput
      // mode: deduplication and the throughput limit per message group (ADR 0020).
      const fifo = def.fifo
        ? {
            fifo: true,
            deduplicationScope: sqs.DeduplicationScope.MESSAGE_GROUP,
            fifoThroughputLimit: sqs.FifoThroughputLimit.PER_MESSAGE_GROUP_ID,
          }
        : {};
      const deadLetterQueue = new sqs.Queue(this, `${name}Dlq`, {
        ...(def.fifo ? { fifo: true } : {}),
        encryption: sqs.QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        retentionPeriod: DLQ_RETENTION,
        removalPolicy: removal,
      });
      const queue = new sqs.Queue(this, `${name}Queue`, {
        ...fifo,
        encryption: sqs.QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        retentionPeriod: Duration.seconds(def.retentionSeconds),
        visibilityTimeout: Duration.seconds(visibilityTimeoutSeconds(def)),
        // No redrive where the consumer dead-letters by itself (the catalog says why).
        ...(def.maxReceiveCount !== undefined
          ? { deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: def.maxReceiveCount } }
          : {}),
        removalPolicy: removal,
      });
      if (def.maxReceiveCount === undefined) {
        acknowledge(queue, 'AwsSolutions-SQS3', [
          `The ${def.name} queue has no redrive on purpose (ADR 0020): its consumer holds a message`,
          "group's head while a step continues, and SQS counts a receive for every message returned",
          'behind a failed head, so a receive count would dead-letter a key out of order. Its',
          'consumer dead-letters malformed messages itself, and an age-of-oldest-message alarm',
          'watches a key that keeps failing.',
        ]);
        acknowledge(deadLetterQueue, 'AwsSolutions-SQS3', [
          `The ${def.name} dead-letter queue: its consumer sends malformed messages here itself`,
          '(with their group), so no queue names it in a redrive policy. A DLQ has no DLQ of its own.',
        ]);
      }
      props.resources.addQueue(def.name, queue, deadLetterQueue);

      const consumer = new CausewayFunction(this, `${name}Consumer`, {
        ...common,
        handler: def.consumer.handler,
        description: `Consumes the ${def.name} queue`,
        access: def.consumer,
        timeoutSeconds: def.consumer.timeoutSeconds,
        memoryMb: def.consumer.memoryMb,
      });
      consumer.consume(def.name, queue, deadLetterQueue, {
        batchSize: def.consumer.batchSize,
        maxBatchingWindowSeconds: def.consumer.maxBatchingWindowSeconds,
      });
      createdQueues.set(def.name, { queue, deadLetterQueue, consumer });
    }
    this.queues = createdQueues;

    const built = capabilityFunctions(this, 'webhooks', props);
    this.internalFunctions = built.internalFunctions;
    this.schedules = built.schedules;
  }
}
