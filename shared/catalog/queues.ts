/**
 * The queue catalog: every SQS queue, its dead-letter queue, redrive and the Lambda consumer
 * that drains it. Used by the CDK notifications construct, the local-cloud bootstrap and the
 * local pollers (which mimic the Lambda SQS event source mapping from these same numbers).
 *
 * Keep this file free of runtime imports: Lambda bundles import it to resolve queue URLs.
 */

import type { FunctionAccess } from './access';

interface ConsumerDef extends FunctionAccess {
  /** Handler module, relative to the repository root; it exports `handler`. */
  readonly handler: string;
  readonly batchSize: number;
  /** Seconds the event source waits to fill a batch (0 = deliver at once). */
  readonly maxBatchingWindowSeconds: number;
  /** Lambda timeout; the queue's visibility timeout is derived from it (6×, AWS guidance). */
  readonly timeoutSeconds: number;
  readonly memoryMb: number;
}

export interface QueueDef {
  readonly name: string;
  readonly description: string;
  /**
   * A FIFO queue (its physical name ends in `.fifo`, its DLQ is FIFO too): messages of one
   * message group are handed out in order, one group's failure holding only that group.
   */
  readonly fifo?: true;
  /**
   * Receives after which a message moves to the queue's DLQ; `undefined`: no redrive, the
   * consumer dead-letters messages itself (a FIFO queue whose consumer holds a group's head on
   * purpose, where SQS's receive count also counts the messages returned behind it).
   */
  readonly maxReceiveCount: number | undefined;
  /** Seconds a message is kept (max 14 days). */
  readonly retentionSeconds: number;
  readonly consumer: ConsumerDef;
}

const DAY = 24 * 60 * 60;

/** The delivery consumers' settings and tables (the deliveries queue's and the ordered one's). */
const DELIVER = {
  batchSize: 10,
  maxBatchingWindowSeconds: 0,
  timeoutSeconds: 60,
  memoryMb: 512,
  tables: [
    // A 410 answer disables the webhook: its status and subscription items change together.
    { table: 'webhooks', access: 'readWrite' },
    { table: 'webhookSubscriptions', access: 'readWrite' },
    // The record's conditional PutItem is the attempt claim (docs/adr/0006).
    { table: 'deliveryHistory', access: 'readWrite' },
    // History id slots (a leased slot per container makes ids unique without a hot item), and
    // throttled webhooks' delivery clocks.
    { table: 'counters', access: 'readWrite' },
    // The attempt claims.
    { table: 'idempotency', access: 'readWrite' },
    // A recover job's re-sends count themselves on the job.
    { table: 'webhookJobs', access: 'readWrite' },
  ],
  usesSecrets: true,
  // Deliveries into customers' AWS accounts go through the stage's principal (ADR 0019).
  deliveryPrincipal: 'assume',
} as const;

/** The fan-out consumers' settings and tables (the notifications queue's and the ordered intake's). */
const FAN_OUT = {
  batchSize: 10,
  // Deliver at once (an SQS FIFO event source takes no batching window anyway).
  maxBatchingWindowSeconds: 0,
  timeoutSeconds: 30,
  memoryMb: 512,
  tables: [
    { table: 'webhookSubscriptions', access: 'read' },
    { table: 'idempotency', access: 'readWrite' },
    // Filter evaluation errors, on the webhooks' hourly health counters.
    { table: 'deliveryCounts', access: 'readWrite' },
  ],
} as const;

export const queues = [
  {
    name: 'notifications',
    description: 'Producers publish notification messages here; the fan-out consumer drains it.',
    maxReceiveCount: 5,
    retentionSeconds: 4 * DAY,
    consumer: {
      ...FAN_OUT,
      handler: 'functions/consumers/fan-out.ts',
      // deliveries: one message per (notification, webhook); notifications: its follow-ups and
      // its DLQ (malformed).
      sendsTo: ['deliveries', 'notifications'],
    },
  },
  {
    name: 'notificationsOrdered',
    description:
      'Producers publish notifications with an orderingKey here (FIFO, the key as message group); the fan-out consumer drains each key in order (ADR 0020).',
    fifo: true,
    // No redrive (ADR 0020): a fan-out that continues holds its group's head and comes back at
    // once, and SQS counts a receive for every message returned behind a failed head too, so a
    // receive count would dead-letter a key's later notifications, or its head while the ones
    // behind it go on. The consumer dead-letters malformed messages itself; a step that keeps
    // failing holds its key only (the queue's oldest-message alarm shows it).
    maxReceiveCount: undefined,
    retentionSeconds: 14 * DAY,
    consumer: {
      ...FAN_OUT,
      handler: 'functions/consumers/fan-out-ordered.ts',
      // deliveries: one message per (notification, webhook); deliveriesOrdered: an ordered
      // webhook's (ADR 0020). Its own queue's head is held by the event source's visibility and
      // the DLQ comes with consuming it.
      sendsTo: ['deliveries', 'deliveriesOrdered'],
    },
  },
  {
    name: 'deliveries',
    description:
      'One message per (notification, webhook); retries are scheduled by message visibility, so the receive count is the attempt number.',
    // Attempts = 1 + the length of the retry schedule (see shared/webhooks); the delivery
    // consumer moves a message to the DLQ itself once the schedule is exhausted, this is the
    // backstop for consumer crashes.
    maxReceiveCount: 12,
    retentionSeconds: 14 * DAY,
    consumer: {
      ...DELIVER,
      handler: 'functions/consumers/deliver.ts',
      // deliveries: retry visibility, a throttled delivery sent again for its slot, and the DLQ
      // move for exhausted or malformed deliveries; notifications: webhookAutoDisabled.
      sendsTo: ['deliveries', 'notifications'],
    },
  },
  {
    name: 'deliveriesOrdered',
    description:
      "An ordered webhook's deliveries of keyed notifications (FIFO, a message group per webhook and key, ADR 0020): a key's deliveries one at a time, in order; a failed head holds only its key.",
    fifo: true,
    // No redrive, as on the ordered intake: SQS counts a receive for every message returned
    // behind a failed head, so a receive count would dead-letter a key's later deliveries first.
    // The consumer counts attempts from the history and dead-letters by itself.
    maxReceiveCount: undefined,
    retentionSeconds: 14 * DAY,
    consumer: {
      ...DELIVER,
      handler: 'functions/consumers/deliver-ordered.ts',
      tables: [
        ...DELIVER.tables,
        // Parked, held and draining keys: their state items and waiting deliveries (ADR 0020).
        { table: 'orderedKeys', access: 'readWrite' },
      ],
      // notifications: webhookAutoDisabled and webhookKeyParked. A retry, a throttled head and a
      // paused webhook's head wait by their visibility on the queue itself, and the DLQ comes
      // with consuming it.
      sendsTo: ['notifications'],
    },
  },
  {
    name: 'integrationChecks',
    description:
      'Periodic checks of integrations: a page message per page of integrations, fanned out into one check message per integration.',
    maxReceiveCount: 5,
    retentionSeconds: 1 * DAY,
    consumer: {
      handler: 'functions/consumers/check-integrations.ts',
      batchSize: 5,
      maxBatchingWindowSeconds: 0,
      // One check at most (its own bound, INTEGRATION_CHECK_TIMEOUT_SECONDS, 30 s): the checks of
      // a batch run concurrently, each on its own host.
      timeoutSeconds: 60,
      memoryMb: 1024,
      tables: [
        { table: 'integrations', access: 'readWrite' },
        { table: 'checkLeases', access: 'readWrite' },
        // The data sources each check locates (ADR 0016).
        { table: 'dataSources', access: 'read' },
      ],
      // More pages and checks of the round, and the health notifications.
      sendsTo: ['integrationChecks', 'notifications'],
      usesSecrets: true,
    },
  },
  {
    name: 'recoveries',
    description:
      'Steps of webhook recover jobs: each message advances one job by a page of its webhook’s history, then sends the next step.',
    // A step that fails comes back after its visibility timeout and resumes from the job's
    // checkpoint; one that keeps failing is dead-lettered and the job stays `running` (its
    // lease lapses, so a new recover may start).
    maxReceiveCount: 5,
    retentionSeconds: 4 * DAY,
    consumer: {
      handler: 'functions/consumers/recover.ts',
      batchSize: 1,
      maxBatchingWindowSeconds: 0,
      timeoutSeconds: 60,
      memoryMb: 512,
      tables: [
        { table: 'webhooks', access: 'read' },
        { table: 'deliveryHistory', access: 'read' },
        { table: 'webhookJobs', access: 'readWrite' },
      ],
      // deliveries: the re-sends; recoveries: the job's next step.
      sendsTo: ['deliveries', 'recoveries'],
    },
  },
] as const satisfies readonly QueueDef[];

/**
 * Spelled out (not derived from `queues`) because consumers' `sendsTo` refers to queue names:
 * deriving it would make the catalog's type circular. The check below keeps the two in step.
 */
export type QueueName =
  | 'notifications'
  | 'notificationsOrdered'
  | 'deliveries'
  | 'deliveriesOrdered'
  | 'integrationChecks'
  | 'recoveries';
type CatalogedQueueName = (typeof queues)[number]['name'];
const queueNamesInStep: [QueueName, CatalogedQueueName] extends [CatalogedQueueName, QueueName]
  ? true
  : never = true;
void queueNamesInStep;

export function queueEnvVar(name: QueueName): string {
  return `QUEUE_${name.toUpperCase()}_URL`;
}

export function dlqEnvVar(name: QueueName): string {
  return `QUEUE_${name.toUpperCase()}_DLQ_URL`;
}

export function visibilityTimeoutSeconds(def: QueueDef): number {
  return def.consumer.timeoutSeconds * 6;
}

/** The cataloged queue `name` (every QueueName is cataloged; the check above keeps it so). */
export function queueDef(name: QueueName): QueueDef {
  const def = queues.find((q) => q.name === name);
  if (!def) throw new Error(`queue ${name} is not in the catalog`);
  return def;
}

/** The receives after which the queue's redrive moves a message to its DLQ (it must have one). */
function redriveAfter(name: QueueName): number {
  const count = queueDef(name).maxReceiveCount;
  if (count === undefined) throw new Error(`queue ${name} has no redrive policy`);
  return count;
}

/**
 * Retries a delivery may be scheduled for: attempts are 1 + the retry schedule, and the
 * deliveries queue dead-letters a message after `maxReceiveCount` receives.
 */
export const MAX_DELIVERY_RETRIES = redriveAfter('deliveries') - 1;
