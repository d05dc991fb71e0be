/**
 * `POST /webhooks/{id}/recover` and `GET /webhooks/{id}/recover/{jobId}`: start a recover job
 * (../pipeline/recover.ts) for a webhook the caller may see, or count what it would send
 * (`dryRun`), and read a job's progress. One job per webhook runs at a time (a second start while
 * one runs is a 409). The webhook must be enabled: a disabled one would only record its re-sends
 * as skipped.
 */
import { randomBytes } from 'node:crypto';
import type { Principal } from '../../auth/permissions';
import { ConflictError, InvalidInputError, NotFoundError } from '../../errors';
import { historyRetentionDays } from '../config';
import { countRecoverable, type RecoverWindow, sendStep } from '../pipeline/recover';
import { statusOf } from '../status';
import { getJob, LEASE_MS, type RecoverJob, startJob } from '../store/jobs';
import type { RecoverJobView } from './contracts';
import { findVisibleWebhook } from './webhooks';

const DAY_MS = 86_400_000;

export interface RecoverInput {
  since: number;
  until?: number;
  onlyFailed: boolean;
}

/** The window, checked against now and the history's retention (a 400 naming the field). */
function recoverWindow(webhookId: number, input: RecoverInput, now: number): RecoverWindow {
  if (input.since > now) throw new InvalidInputError('body.since: must not be in the future');
  const oldest = now - historyRetentionDays() * DAY_MS;
  if (input.since < oldest) {
    throw new InvalidInputError(
      `body.since: must be within the history retention (${historyRetentionDays()} days), not before ${new Date(oldest).toISOString()}`,
    );
  }
  const until = Math.min(input.until ?? now, now);
  if (until < input.since) throw new InvalidInputError('body.until: must not be before since');
  return { webhookId, since: input.since, until, onlyFailed: input.onlyFailed };
}

function jobView(job: RecoverJob): RecoverJobView {
  return {
    jobId: job.jobId,
    webhookId: job.webhookId,
    status: job.status,
    since: new Date(job.since).toISOString(),
    until: new Date(job.until).toISOString(),
    onlyFailed: job.onlyFailed,
    scanned: job.scanned,
    deliveries: job.deliveries,
    alreadyDelivered: job.alreadyDelivered,
    enqueued: job.enqueued,
    resent: job.resent ?? 0,
    startedAt: job.startedAt,
    updatedAt: job.updatedAt,
    ...(job.finishedAt ? { finishedAt: job.finishedAt } : {}),
  };
}

export async function startRecover(
  caller: Principal,
  id: number,
  input: RecoverInput,
  dryRun: boolean,
): Promise<{ statusCode: 200 | 202; body: unknown }> {
  const webhook = await findVisibleWebhook(caller, id);
  const now = Date.now();
  const window = recoverWindow(id, input, now);
  if (dryRun) {
    return {
      statusCode: 200,
      body: {
        dryRun: true,
        deliveries: await countRecoverable(window, now),
        since: new Date(window.since).toISOString(),
        until: new Date(window.until).toISOString(),
        onlyFailed: window.onlyFailed,
      },
    };
  }
  if (statusOf(webhook) !== 'enabled') {
    throw new ConflictError(
      `webhook ${id} is ${statusOf(webhook)}: enable it before recovering its deliveries`,
    );
  }
  const at = new Date(now).toISOString();
  const job: RecoverJob = {
    jobId: `rj_${randomBytes(16).toString('hex')}`,
    webhookId: id,
    status: 'running',
    since: window.since,
    until: window.until,
    onlyFailed: window.onlyFailed,
    scanned: 0,
    deliveries: 0,
    alreadyDelivered: 0,
    enqueued: 0,
    resent: 0,
    step: 0,
    cursor: { shard: 0 },
    startedAt: at,
    updatedAt: at,
    expiresAt: Math.floor(now / 1000) + 7 * 86_400,
  };
  if ((await startJob(job, now)) === 'busy') {
    throw new ConflictError(
      `a recover job of webhook ${id} is running; wait for it to finish (or for its lease of ${LEASE_MS / 60_000} minutes to lapse)`,
    );
  }
  await sendStep(job.jobId);
  return { statusCode: 202, body: jobView(job) };
}

export async function recoverStatus(caller: Principal, id: number, jobId: string): Promise<RecoverJobView> {
  await findVisibleWebhook(caller, id);
  const job = await getJob(jobId);
  if (!job || job.webhookId !== id)
    throw new NotFoundError(`recover job ${jobId} of webhook ${id} not found`);
  return jobView(job);
}
