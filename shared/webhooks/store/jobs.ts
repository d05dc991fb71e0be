/**
 * Recover jobs in the webhookJobs table: the job item (its window, status, counts and the
 * checkpoint the next step resumes from) and a lease item per webhook (`lease#<webhookId>`) that
 * lets one job run at a time and, once it ended, keeps the next one waiting for the cool-down.
 * Starting a job writes both, and charges the caller's re-send budget (an item in the counters
 * table), in one transaction; each step renews the lease and advances the checkpoint with one
 * write conditional on the step it read, so a step that runs twice (SQS at-least-once) moves the
 * job once.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../store/clients';
import { tableName } from '../../store/tables';
import {
  cancellationCodes,
  conditionalUpdate,
  isTransactionCancelled,
  transactWrite,
} from '../../store/write';

/** How long a job's lease lasts without a step renewing it. */
export const LEASE_MS = 10 * 60_000;
/** Jobs (and their leases) are kept this long after their last change. */
const KEEP_SECONDS = 7 * 86_400;

export interface RecoverCursor {
  /** The write shard being read. */
  shard: number;
  /** Where its next page starts (an index key), absent at the shard's beginning. */
  start?: Record<string, unknown>;
}

export interface RecoverCounts {
  /** History index entries read in the window. */
  scanned: number;
  /** Deliveries in the window (each counted once). */
  deliveries: number;
  /** Deliveries whose latest attempt succeeded (not re-sent when onlyFailed). */
  alreadyDelivered: number;
  /** Re-sends enqueued. */
  enqueued: number;
}

export interface RecoverJob extends RecoverCounts {
  jobId: string;
  webhookId: number;
  status: 'running' | 'completed';
  since: number;
  until: number;
  onlyFailed: boolean;
  /** Re-sends made and recorded: the history stream's consumer counts their records (ADR 0014). */
  resent: number;
  /** Re-sends this job may make (charged to its starter's budget); absent on jobs from before. */
  allowance?: number;
  /** Whether the window held more deliveries to re-send than the allowance when it started. */
  capped?: boolean;
  step: number;
  cursor: RecoverCursor;
  startedAt: string;
  updatedAt: string;
  finishedAt?: string;
  expiresAt: number;
}

const leaseKey = (webhookId: number) => `lease#${webhookId}`;
const expiry = (now: number) => Math.floor(now / 1000) + KEEP_SECONDS;

/** What keeps a new job of a webhook from starting: a running job, or the last one's cool-down. */
export type LeaseHold = { kind: 'running' } | { kind: 'cooling'; until: number };

/** Why a job of the webhook cannot start at `now`, or undefined when it can. */
export async function leaseHold(webhookId: number, now = Date.now()): Promise<LeaseHold | undefined> {
  const out = await documentClient.send(
    new GetCommand({
      TableName: tableName('webhookJobs'),
      Key: { jobId: leaseKey(webhookId) },
      ConsistentRead: true,
    }),
  );
  const lease = out.Item as { leaseUntil?: number; state?: 'running' | 'cooling' } | undefined;
  if (lease?.leaseUntil === undefined || lease.leaseUntil < now) return undefined;
  return lease.state === 'cooling' ? { kind: 'cooling', until: lease.leaseUntil } : { kind: 'running' };
}

/** The counters item of a user's re-send budget (../recover-budget.ts). */
const budgetKey = (userId: number) => `recover-budget-of:${userId}`;

/** Where a user's re-send budget stands (`tat`, epoch ms), absent when whole. */
export async function readBudget(userId: number): Promise<number | undefined> {
  const out = await documentClient.send(
    new GetCommand({
      TableName: tableName('counters'),
      Key: { name: budgetKey(userId) },
      ConsistentRead: true,
    }),
  );
  const value = (out.Item as { value?: unknown } | undefined)?.value;
  return typeof value === 'number' ? value : undefined;
}

/** A charge of the starter's budget: from the value read to the new one. */
export interface BudgetMove {
  userId: number;
  before: number | undefined;
  after: number;
}

/**
 * Creates the job and charges its starter's budget, in one transaction: `started`; `busy` when
 * another job of the webhook holds the lease (running, or cooling down); `budgetMoved` when the
 * budget is no longer at the value read (a concurrent start of the same user: read it again).
 */
export async function startJob(
  job: RecoverJob,
  budget: BudgetMove,
  now = Date.now(),
): Promise<'started' | 'busy' | 'budgetMoved'> {
  try {
    await transactWrite([
      {
        Put: {
          TableName: tableName('webhookJobs'),
          Item: {
            jobId: leaseKey(job.webhookId),
            holder: job.jobId,
            state: 'running',
            leaseUntil: now + LEASE_MS,
            expiresAt: expiry(now),
          },
          ConditionExpression: 'attribute_not_exists(jobId) OR leaseUntil < :now',
          ExpressionAttributeValues: { ':now': now },
        },
      },
      {
        Put: {
          TableName: tableName('webhookJobs'),
          Item: job,
          ConditionExpression: 'attribute_not_exists(jobId)',
        },
      },
      {
        Update: {
          TableName: tableName('counters'),
          Key: { name: budgetKey(budget.userId) },
          UpdateExpression: 'SET #v = :after, expiresAt = :expires',
          ConditionExpression: budget.before === undefined ? 'attribute_not_exists(#v)' : '#v = :before',
          ExpressionAttributeNames: { '#v': 'value' },
          ExpressionAttributeValues: {
            ':after': budget.after,
            // Gone (by TTL) a minute after the budget is whole again.
            ':expires': Math.ceil(budget.after / 1000) + 60,
            ...(budget.before === undefined ? {} : { ':before': budget.before }),
          },
        },
      },
    ]);
    return 'started';
  } catch (error) {
    if (!isTransactionCancelled(error)) throw error;
    const [lease] = cancellationCodes(error);
    return lease === 'ConditionalCheckFailed' ? 'busy' : 'budgetMoved';
  }
}

export async function getJob(jobId: string, consistent = false): Promise<RecoverJob | undefined> {
  const out = await documentClient.send(
    new GetCommand({ TableName: tableName('webhookJobs'), Key: { jobId }, ConsistentRead: consistent }),
  );
  const item = out.Item as RecoverJob | undefined;
  return item?.jobId.startsWith('lease#') ? undefined : item;
}

/**
 * Records a step's progress (counts added, the new cursor, `completed` when `done`) if the job is
 * still at `job.step`, renews or releases the lease; false when another run of the step won.
 */
export async function checkpoint(
  job: RecoverJob,
  added: RecoverCounts,
  cursor: RecoverCursor,
  done: boolean,
  cooldownMs: number,
  now = Date.now(),
): Promise<boolean> {
  const at = new Date(now).toISOString();
  const advanced = await conditionalUpdate({
    TableName: tableName('webhookJobs'),
    Key: { jobId: job.jobId },
    UpdateExpression: `SET #step = :next, #cursor = :cursor, #status = :status, updatedAt = :at, expiresAt = :exp${done ? ', finishedAt = :at' : ''} ADD scanned :scanned, deliveries :deliveries, alreadyDelivered :already, enqueued :enqueued`,
    ConditionExpression: '#step = :step',
    ExpressionAttributeNames: { '#step': 'step', '#cursor': 'cursor', '#status': 'status' },
    ExpressionAttributeValues: {
      ':step': job.step,
      ':next': job.step + 1,
      ':cursor': cursor,
      ':status': done ? 'completed' : 'running',
      ':at': at,
      ':exp': expiry(now),
      ':scanned': added.scanned,
      ':deliveries': added.deliveries,
      ':already': added.alreadyDelivered,
      ':enqueued': added.enqueued,
    },
  });
  if (!advanced) return false;
  // The lease: renewed while the job runs; when it ends, held for the cool-down (only by its holder).
  await conditionalUpdate({
    TableName: tableName('webhookJobs'),
    Key: { jobId: leaseKey(job.webhookId) },
    UpdateExpression: 'SET leaseUntil = :until, #state = :state',
    ConditionExpression: 'holder = :job',
    ExpressionAttributeNames: { '#state': 'state' },
    ExpressionAttributeValues: {
      ':until': done ? now + cooldownMs : now + LEASE_MS,
      ':state': done ? 'cooling' : 'running',
      ':job': job.jobId,
    },
  });
  return true;
}
