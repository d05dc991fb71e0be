/**
 * The recover job (`POST /webhooks/{id}/recover`): re-sends the deliveries of one webhook in a
 * time window whose latest attempt failed (or all of them), to its current URL and secret.
 *
 * Selection pages through the webhook's own history index (byWebhook: its records by time, in N
 * write shards read one after the other) — never a scan, and never all at once. A delivery may
 * have records in several shards and pages, so it is decided at its first record inside the
 * window: one strongly consistent query of its records (all attempts, manual retries and earlier
 * re-sends) gives that first record and the latest one. With `onlyFailed`, a delivery whose latest
 * record is a 2xx is not re-sent: a delivery that later succeeded stays delivered.
 *
 * The job runs in steps on the recoveries queue (one message per step, each step pages until
 * about 20 s have passed), so 100,000 deliveries never meet a function timeout. A step enqueues
 * its re-sends in batches, then checkpoints the cursor and counts (conditional on the step it
 * read: a step that runs twice moves the job once, and the re-send leases drop what it enqueued
 * twice), then sends the next step. A step that runs again after a crash (its checkpoint never
 * written) finds the re-sends its first run made recorded under the job: each counts as enqueued,
 * not as already delivered, and is not enqueued again, so `enqueued` still counts every re-send
 * the job made. Each re-send is a message the delivery consumer sends once
 * (lease `resend#<job>#<delivery>`, ADR 0014), with the original `webhook-id`, as a new record
 * with `retryOf`; the job's `resent` is counted from those records (./history-counts.ts).
 * A job enqueues at most its `allowance` of re-sends (what its start charged to the caller's
 * budget, ../api/recover.ts); the rest of the window is counted, not sent.
 */
import * as z from 'zod/mini';
import { done, type MessageContext, type Next } from '../../edge/queue/contract';
import { logger } from '../../observability/logger';
import { sendAll } from '../../store/queues';
import { historyWriteShards, recoverLimits } from '../config';
import { succeeded } from '../outcome-class';
import { deliveryRecords, type WebhookIndexEntry, webhookWindowPage } from '../store/history';
import { checkpoint, getJob, type RecoverCounts, type RecoverCursor, type RecoverJob } from '../store/jobs';
import { type ResendMessage, resendMessage } from './message';

export interface RecoverWindow {
  webhookId: number;
  /** Epoch ms, inclusive. */
  since: number;
  until: number;
  onlyFailed: boolean;
}

const PAGE_SIZE = 500;
const CONCURRENCY = 16;
/** A step stops paging after this long (the consumer's timeout is 60 s). */
const STEP_BUDGET_MS = 20_000;

const ID_SLOTS = 1000;

interface PageOutcome extends RecoverCounts {
  resends: ResendMessage[];
  /** Deliveries this job has re-sent already (recorded before a crash made the step run again). */
  made: number;
}

/** Decides every delivery whose first record in the window is on this page. */
async function decidePage(
  window: RecoverWindow,
  entries: readonly WebhookIndexEntry[],
  jobId: string,
): Promise<PageOutcome> {
  const minId = window.since * ID_SLOTS;
  const maxId = window.until * ID_SLOTS + ID_SLOTS - 1;
  const onPage = new Map<string, number[]>();
  for (const entry of entries)
    onPage.set(entry.deliveryId, [...(onPage.get(entry.deliveryId) ?? []), entry.id]);
  const outcome: PageOutcome = {
    scanned: entries.length,
    deliveries: 0,
    alreadyDelivered: 0,
    enqueued: 0,
    resends: [],
    made: 0,
  };
  const queue = [...onPage.keys()];
  const worker = async () => {
    for (let deliveryId = queue.shift(); deliveryId !== undefined; deliveryId = queue.shift()) {
      const records = await deliveryRecords(deliveryId);
      const inWindow = records.filter((r) => r.id >= minId && r.id <= maxId);
      const first = inWindow.reduce<WebhookIndexEntry | undefined>(
        (a, r) => (a && a.id < r.id ? a : r),
        undefined,
      );
      if (!first || !onPage.get(deliveryId)?.includes(first.id)) continue;
      outcome.deliveries++;
      if (records.some((r) => r.recoverJob === jobId)) {
        // Re-sent by this job already: a run of this step that crashed before its checkpoint.
        outcome.made++;
        continue;
      }
      const latest = records.reduce((a, r) => (a.id > r.id ? a : r));
      if (window.onlyFailed && succeeded(latest.statusCode)) {
        outcome.alreadyDelivered++;
        continue;
      }
      outcome.resends.push(resendMessage(window.webhookId, jobId, latest));
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, queue.length) }, worker));
  outcome.enqueued = outcome.resends.length + outcome.made;
  return outcome;
}

/** The next position after a page of `shard` (`next` absent: that shard is read to its end). */
const advance = (shard: number, next: Record<string, unknown> | undefined): RecoverCursor =>
  next ? { shard, start: next } : { shard: shard + 1 };

/**
 * Pages from `cursor` until the window is read or `deadline` passes; `send` gets each page's
 * re-sends (none for a dry run). Answers the counts and where it stopped.
 */
async function walkWindow(
  window: RecoverWindow,
  cursor: RecoverCursor,
  deadline: number,
  jobId: string,
  send: (resends: ResendMessage[]) => Promise<void>,
  allowance: number,
): Promise<{ counts: RecoverCounts; cursor: RecoverCursor; done: boolean }> {
  const shards = historyWriteShards();
  const counts: RecoverCounts = { scanned: 0, deliveries: 0, alreadyDelivered: 0, enqueued: 0 };
  const range = { minId: window.since * ID_SLOTS, maxId: window.until * ID_SLOTS + ID_SLOTS - 1 };
  let at = cursor;
  while (at.shard < shards) {
    const page = await webhookWindowPage(window.webhookId, at.shard, range, at.start, PAGE_SIZE);
    const decided = await decidePage(window, page.entries, jobId);
    // The job re-sends no more than its allowance (charged to its starter's budget): the rest of
    // the window waits for a later job. The walk goes on to the window's end all the same, so the
    // job's counts describe the whole window.
    const room = allowance - counts.enqueued - decided.made;
    const resends = decided.resends.slice(0, Math.max(0, room));
    if (resends.length > 0) await send(resends);
    counts.scanned += decided.scanned;
    counts.deliveries += decided.deliveries;
    counts.alreadyDelivered += decided.alreadyDelivered;
    counts.enqueued += resends.length + decided.made;
    at = advance(at.shard, page.next);
    if (Date.now() > deadline) break;
  }
  return { counts, cursor: at, done: at.shard >= shards };
}

/**
 * What a recover with this window would re-send now, from the webhook's index alone (one call:
 * `dryRun`): the window is read through to now, so every later attempt of a delivery is seen
 * and its latest record is the one with the largest id.
 */
export async function countRecoverable(window: RecoverWindow, now = Date.now()): Promise<number> {
  const range = { minId: window.since * ID_SLOTS, maxId: now * ID_SLOTS + ID_SLOTS - 1 };
  const untilId = window.until * ID_SLOTS + ID_SLOTS - 1;
  const seen = new Map<string, { inWindow: boolean; latestId: number; latestOk: boolean }>();
  await Promise.all(
    Array.from({ length: historyWriteShards() }, async (_, shard) => {
      let start: Record<string, unknown> | undefined;
      do {
        const page = await webhookWindowPage(window.webhookId, shard, range, start, 1000);
        for (const entry of page.entries) {
          const state = seen.get(entry.deliveryId) ?? { inWindow: false, latestId: -1, latestOk: false };
          if (entry.id <= untilId) state.inWindow = true;
          if (entry.id > state.latestId) {
            state.latestId = entry.id;
            state.latestOk = succeeded(entry.statusCode);
          }
          seen.set(entry.deliveryId, state);
        }
        start = page.next;
      } while (start);
    }),
  );
  let count = 0;
  for (const state of seen.values()) if (state.inWindow && !(window.onlyFailed && state.latestOk)) count++;
  return count;
}

export const RecoverStepSchema = z.strictObject({ jobId: z.string().check(z.regex(/^rj_[0-9a-f]{32}$/)) });

/** Sends a job's (next) step. */
export async function sendStep(jobId: string): Promise<void> {
  await sendAll('recoveries', [JSON.stringify({ jobId })]);
}

const windowOf = (job: RecoverJob): RecoverWindow => ({
  webhookId: job.webhookId,
  since: job.since,
  until: job.until,
  onlyFailed: job.onlyFailed,
});

/** One step of a recover job (the recoveries queue's consumer). */
export async function recoverStep(message: { jobId: string }, context: MessageContext): Promise<Next> {
  const job = await getJob(message.jobId, true);
  if (job?.status !== 'running') return done();
  const budget = Math.min(STEP_BUDGET_MS, context.deadline - Date.now() - 30_000);
  const walked = await walkWindow(
    windowOf(job),
    job.cursor,
    Date.now() + budget,
    job.jobId,
    async (resends) => {
      await sendAll(
        'deliveries',
        resends.map((m) => JSON.stringify(m)),
      );
    },
    // Jobs from before allowances re-send the whole window.
    (job.allowance ?? Number.POSITIVE_INFINITY) - job.enqueued,
  );
  const cooldownMs = recoverLimits().cooldownSeconds * 1000;
  if (!(await checkpoint(job, walked.counts, walked.cursor, walked.done, cooldownMs))) {
    logger.info('recover step already applied by another run', { jobId: job.jobId, step: job.step });
    return done();
  }
  logger.info('recover step', { jobId: job.jobId, step: job.step, ...walked.counts, done: walked.done });
  if (!walked.done) await sendStep(job.jobId);
  return done();
}
