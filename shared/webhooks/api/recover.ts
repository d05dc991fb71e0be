/**
 * `POST /webhooks/{id}/recover` and `GET /webhooks/{id}/recover/{jobId}`: start a recover job
 * (../pipeline/recover.ts) for a webhook the caller may see, or count what it would send
 * (`dryRun`), and read a job's progress. One job per webhook runs at a time (a second start while
 * one runs is a 409). The webhook must be enabled: a disabled one would only record its re-sends
 * as skipped.
 *
 * Every re-send is a POST to a receiver, so jobs are bounded (issue 34, item 10: three recoveries
 * back to back sent 100, 200 and 300 POSTs to a URL the webhook had just been pointed at): a job
 * re-sends at most the stage's `perJob` and the caller's hourly budget, and starting it charges
 * the caller's budget with the deliveries it will re-send (../recover-budget.ts); after a job of a
 * webhook ends, the next waits for the cool-down. A start the budget or the cool-down refuses is a
 * 429 saying when it may run (and `Retry-After`).
 */
import { randomBytes } from 'node:crypto';
import { isAdmin, type Principal } from '../../auth/permissions';
import { ConflictError, InvalidInputError, NotFoundError, RateLimitedError } from '../../errors';
import { historyRetentionDays, recoverLimits } from '../config';
import { countRecoverable, type RecoverWindow, sendStep } from '../pipeline/recover';
import { chargeBudget } from '../recover-budget';
import { statusOf } from '../status';
import { getJob, LEASE_MS, leaseHold, type RecoverJob, readBudget, startJob } from '../store/jobs';
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
    ...(job.allowance !== undefined ? { allowance: job.allowance, capped: job.capped === true } : {}),
  };
}

/** Seconds until `at` (at least 1), for Retry-After. */
const secondsUntil = (at: number, now: number) => Math.max(1, Math.ceil((at - now) / 1000));

/** The answer when a job of the webhook cannot start now: 409 while one runs, 429 while cooling down. */
function heldError(id: number, hold: NonNullable<Awaited<ReturnType<typeof leaseHold>>>, now: number): Error {
  if (hold.kind === 'running') {
    return new ConflictError(
      `a recover job of webhook ${id} is running; wait for it to finish (or for its lease of ${LEASE_MS / 60_000} minutes to lapse)`,
    );
  }
  return new RateLimitedError(
    `webhook ${id}'s last recover job ended less than ${recoverLimits().cooldownSeconds} s ago; its next may start at ${new Date(hold.until).toISOString()}`,
    secondsUntil(hold.until, now),
  );
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
  const held = await leaseHold(id, now);
  if (held) throw heldError(id, held, now);
  const limits = recoverLimits();
  const perHour = isAdmin(caller) ? limits.adminPerHour : limits.userPerHour;
  // What the job would re-send now (the dry run's count), bounded by the job cap and the budget's size.
  const wanted = await countRecoverable(window, now);
  const allowance = Math.min(wanted, limits.perJob, perHour);
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
    allowance,
    capped: wanted > allowance,
    step: 0,
    cursor: { shard: 0 },
    startedAt: at,
    updatedAt: at,
    expiresAt: Math.floor(now / 1000) + 7 * 86_400,
  };
  await startCharged(caller, job, perHour, now);
  await sendStep(job.jobId);
  return { statusCode: 202, body: jobView(job) };
}

/** Lost races on the caller's budget before a start gives up (each round reads it again). */
const BUDGET_ROUNDS = 10;

/**
 * Starts the job and charges the caller's budget with its allowance, together; a 429 saying when
 * the budget takes it, a 409 or 429 when another job of the webhook holds the lease meanwhile.
 */
async function startCharged(caller: Principal, job: RecoverJob, perHour: number, now: number): Promise<void> {
  const allowance = job.allowance ?? 0;
  for (let round = 0; round < BUDGET_ROUNDS; round++) {
    const before = await readBudget(caller.userId);
    const charge = chargeBudget(before, allowance, perHour, now);
    if (!charge.ok) {
      throw new RateLimitedError(
        `recover budget: this job would re-send ${allowance} deliveries, and ${isAdmin(caller) ? 'an admin' : 'a user'} may re-send ${perHour} per hour; the budget takes it at ${new Date(charge.retryAt).toISOString()} (a narrower window re-sends fewer)`,
        secondsUntil(charge.retryAt, now),
      );
    }
    const outcome = await startJob(job, { userId: caller.userId, before, after: charge.tat }, now);
    if (outcome === 'started') return;
    if (outcome === 'busy') {
      const held = await leaseHold(job.webhookId, now);
      throw heldError(job.webhookId, held ?? { kind: 'running' }, now);
    }
  }
  throw new ConflictError('recover jobs of this user are being started concurrently; try again');
}

export async function recoverStatus(caller: Principal, id: number, jobId: string): Promise<RecoverJobView> {
  await findVisibleWebhook(caller, id);
  const job = await getJob(jobId);
  if (!job || job.webhookId !== id)
    throw new NotFoundError(`recover job ${jobId} of webhook ${id} not found`);
  return jobView(job);
}
