/**
 * Recover jobs in the webhookJobs table: the job item (its window, status, counts and the
 * checkpoint the next step resumes from) and a lease item per webhook (`lease#<webhookId>`) that
 * lets one job run at a time. Starting a job writes both in one transaction; each step renews the
 * lease and advances the checkpoint with one write conditional on the step it read, so a step
 * that runs twice (SQS at-least-once) moves the job once.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../store/clients';
import { tableName } from '../../store/tables';
import { conditionalUpdate, isTransactionCancelled, transactWrite } from '../../store/write';

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
  step: number;
  cursor: RecoverCursor;
  startedAt: string;
  updatedAt: string;
  finishedAt?: string;
  expiresAt: number;
}

const leaseKey = (webhookId: number) => `lease#${webhookId}`;
const expiry = (now: number) => Math.floor(now / 1000) + KEEP_SECONDS;

/** Creates the job unless another job of the webhook holds a live lease: `started` or `busy`. */
export async function startJob(job: RecoverJob, now = Date.now()): Promise<'started' | 'busy'> {
  try {
    await transactWrite([
      {
        Put: {
          TableName: tableName('webhookJobs'),
          Item: {
            jobId: leaseKey(job.webhookId),
            holder: job.jobId,
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
    ]);
    return 'started';
  } catch (error) {
    if (isTransactionCancelled(error)) return 'busy';
    throw error;
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
  // The lease: renewed while the job runs, given up when it ends (only by its holder).
  await conditionalUpdate({
    TableName: tableName('webhookJobs'),
    Key: { jobId: leaseKey(job.webhookId) },
    UpdateExpression: 'SET leaseUntil = :until',
    ConditionExpression: 'holder = :job',
    ExpressionAttributeValues: { ':until': done ? 0 : now + LEASE_MS, ':job': job.jobId },
  });
  return true;
}
