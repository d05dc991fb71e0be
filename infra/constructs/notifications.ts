/**
 * Messaging and background functions: every queue of the queue catalogue with its dead-letter
 * queue and Lambda consumer, the internal functions other functions invoke, and the scheduled
 * functions (`shared/catalog/functions.ts`).
 *
 * Queues use SQS managed server-side encryption (SSE-SQS): messages are encrypted at rest with
 * keys SQS owns, with no KMS key policy to extend to every producer and consumer and no KMS
 * request charges or throttling on the delivery path. Message bodies carry ids and
 * notification payloads; secrets never travel through a queue.
 */
import { Duration } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import {
  type InternalFunctionDef,
  internalFunctions,
  type ScheduleDef,
  schedules,
} from '../../shared/catalog/functions';
import { type QueueDef, queues, visibilityTimeoutSeconds } from '../../shared/catalog/queues';
import type { HandlerBundles } from './bundles';
import { CausewayFunction, type PlatformResources, removalPolicy, type StageContext } from './function';

/** The longest retention SQS allows; DLQ messages wait there for a human. */
const DLQ_RETENTION = Duration.days(14);

export interface NotificationsProps {
  readonly stage: StageContext;
  readonly resources: PlatformResources;
  /** @default - each function bundles itself (see `CausewayFunctionProps.bundles`) */
  readonly bundles?: HandlerBundles;
  /** @default every entry of the queue catalogue */
  readonly queues?: readonly QueueDef[];
  /** @default every entry of `internalFunctions` in the function catalogue */
  readonly internalFunctions?: readonly InternalFunctionDef[];
  /** @default every entry of `schedules` in the function catalogue */
  readonly schedules?: readonly ScheduleDef[];
}

export interface CatalogueQueue {
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;
  readonly consumer: CausewayFunction;
}

const pascal = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);

export class Notifications extends Construct {
  /** Catalogue name → queue, its DLQ and its consumer. */
  public readonly queues: ReadonlyMap<string, CatalogueQueue>;
  /** Catalogue name → internal function. */
  public readonly internalFunctions: ReadonlyMap<string, CausewayFunction>;
  /** Catalogue name → scheduled function and its rule. */
  public readonly schedules: ReadonlyMap<string, { fn: CausewayFunction; rule: events.Rule }>;

  constructor(scope: Construct, id: string, props: NotificationsProps) {
    super(scope, id);
    const removal = removalPolicy(props.stage);
    const common = { stage: props.stage, resources: props.resources, bundles: props.bundles };

    const createdQueues = new Map<string, CatalogueQueue>();
    for (const def of props.queues ?? (queues as readonly QueueDef[])) {
      const name = pascal(def.name);
      const deadLetterQueue = new sqs.Queue(this, `${name}Dlq`, {
        encryption: sqs.QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        retentionPeriod: DLQ_RETENTION,
        removalPolicy: removal,
      });
      const queue = new sqs.Queue(this, `${name}Queue`, {
        encryption: sqs.QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        retentionPeriod: Duration.seconds(def.retentionSeconds),
        visibilityTimeout: Duration.seconds(visibilityTimeoutSeconds(def)),
        deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: def.maxReceiveCount },
        removalPolicy: removal,
      });
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

    const createdFunctions = new Map<string, CausewayFunction>();
    for (const def of props.internalFunctions ?? (internalFunctions as readonly InternalFunctionDef[])) {
      const fn = new CausewayFunction(this, `${pascal(def.name)}Function`, {
        ...common,
        handler: def.handler,
        description: def.description,
        access: def,
        timeoutSeconds: def.timeoutSeconds,
        memoryMb: def.memoryMb,
      });
      props.resources.addInternalFunction(def.name, fn);
      createdFunctions.set(def.name, fn);
    }
    this.internalFunctions = createdFunctions;

    const createdSchedules = new Map<string, { fn: CausewayFunction; rule: events.Rule }>();
    for (const def of props.schedules ?? (schedules as readonly ScheduleDef[])) {
      const name = pascal(def.name);
      const fn = new CausewayFunction(this, `${name}Scheduled`, {
        ...common,
        handler: def.handler,
        description: def.description,
        access: def,
        timeoutSeconds: def.timeoutSeconds,
      });
      const rule = new events.Rule(this, `${name}Schedule`, {
        description: def.description,
        schedule: events.Schedule.rate(Duration.minutes(def.rateMinutes)),
        targets: [new targets.LambdaFunction(fn, { retryAttempts: 2 })],
      });
      createdSchedules.set(def.name, { fn, rule });
    }
    this.schedules = createdSchedules;
  }
}
