/**
 * Sending a stored record's request again, under its original `webhook-id`, as a new history
 * record with `retryOf`: a manual retry (the webhook sender function, for
 * `POST /webhooks/history/retry/{id}`), or a recover job's re-send (the deliveries queue, ./recover.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { done, type MessageContext, type Next, retryIn } from '../../edge/queue/contract';
import { NotFoundError } from '../../errors';
import { logger } from '../../observability/logger';
import type { HistoryRecord } from '../history-model';
import { statusOf } from '../status';
import { finishLease, finishStep, takeStep } from '../store/dedup';
import { getHistoryItem, resendRecorded } from '../store/history';
import { type HistoryKey, historyView, requestView } from '../store/history-keys';
import { getWebhookItem } from '../store/webhooks';
import { type AttemptFields, invocationEnd, post, record, skippedOutcome, writeDeadline } from './attempt';
import { type ResendMessage, resendKey } from './message';
import { deliveryTraceparent, observeAttempt } from './telemetry';
import { deferToSlot, throttle } from './throttle';
import type { AttemptOutcome } from './transport';

/** Days a re-send lease is kept: longer than a message can live on the deliveries queue (14 days). */
const LEASE_TTL_DAYS = 15;
/**
 * A re-send's lease runs this long past the end of the invocation that holds it: longer than the
 * holder may run (Lambda ends it at its timeout, the deliveries consumer's 60 s in AWS; a local
 * cloud may set a shorter one, LOCAL_CONSUMER_TIMEOUT_SECONDS).
 */
const LEASE_PAST_DEADLINE_MS = 5_000;

/**
 * Re-sends a stored record's request to its webhook now (same `webhook-id`) and records the
 * attempt as a new history record. Runs in the webhook sender function; the API route has
 * already found the record among those the caller may see (`shared/webhooks/api/retry.ts`).
 */
export async function resendHistoryRecord(key: HistoryKey, context?: Context): Promise<HistoryRecord> {
  const original = await getHistoryItem(key);
  if (!original) throw new NotFoundError(`history record ${key.deliveryId}/${key.attemptOrId} not found`);
  const webhook = await getWebhookItem(original.webhooksId);
  if (!webhook)
    throw new NotFoundError(
      `webhook ${original.webhooksId} of history record ${original.id} no longer exists`,
    );
  const payload = requestView(original.request);
  const fields = {
    deliveryId: original.deliveryId,
    attempt: original.attempt,
    activityId: original.webhooksActivityId,
    notificationType: original.notificationType,
    payload,
    retryOf: original.id,
  };
  const outcome = await post(webhook, fields, deliveryTraceparent({}));
  const created = await record(webhook, fields, outcome, writeDeadline(invocationEnd(context)));
  if (!created || created === 'duplicate')
    throw new Error(`the re-send of history record ${original.id} was made but could not be recorded`);
  return historyView(created);
}

/**
 * A recover job's re-send (./recover.ts): the record's request, sent to the webhook's current URL
 * under the original `webhook-id`, recorded as a new record with `retryOf` and the job, never
 * retried automatically. A disabled webhook's re-send is recorded as skipped; a throttled one
 * waits for its slot like any delivery. Once per job and delivery (ADR 0014): the re-send takes
 * `resend#<job>#<delivery>` as a lease before its POST and makes it final after its record is
 * written; the job's `resent` is counted from the records (./history-counts.ts). A re-send whose
 * holder died is taken over once the lease has run out: recorded already, it is only made final;
 * otherwise it is sent again (same `webhook-id`) and recorded as possibly delivered before.
 */
export async function resend(message: ResendMessage, context: MessageContext): Promise<Next> {
  const { jobId, deliveryId } = message.resend;
  const lease = { id: `resend#${jobId}#${deliveryId}`, holder: randomUUID() };
  const leaseMs = Math.max(0, context.deadline - Date.now()) + LEASE_PAST_DEADLINE_MS;
  const [claim, original, webhook] = await Promise.all([
    takeStep(lease.id, leaseMs, LEASE_TTL_DAYS, Date.now(), lease.holder),
    getHistoryItem(resendKey(message)),
    getWebhookItem(message.webhookId),
  ]);
  const ids = { jobId, deliveryId, webhookId: message.webhookId };
  if (claim.state === 'running') {
    const seconds = Math.max(1, Math.ceil((claim.leaseUntil - Date.now()) / 1000) + 1);
    return retryIn(
      seconds,
      `re-send ${deliveryId} of job ${jobId} is held elsewhere; back when its lease ends`,
    );
  }
  if (claim.state === 'done') {
    logger.warn('re-send dropped: made and recorded already', ids);
    return done();
  }
  if (!original || !webhook) {
    logger.warn('re-send dropped', {
      ...ids,
      reason: original ? 'the webhook was deleted' : 'the record to re-send no longer exists',
    });
    // A copy of this message is dropped too.
    await finishStep(lease.id, LEASE_TTL_DAYS);
    return done();
  }
  let possiblyDeliveredBefore = false;
  if (claim.takenOver) {
    if (await resendRecorded(deliveryId, jobId)) {
      // The holder that died had recorded it: only the lease was left to make final.
      await finishLease(lease.id, lease.holder, LEASE_TTL_DAYS);
      logger.warn('re-send taken over: recorded by its earlier holder, now marked done', ids);
      return done();
    }
    possiblyDeliveredBefore = true;
    logger.warn(
      're-send taken over without a record: sent again, recorded as possibly delivered before',
      ids,
    );
  }
  const fields: AttemptFields = {
    deliveryId,
    attempt: original.attempt,
    activityId: original.webhooksActivityId,
    notificationType: original.notificationType,
    payload: { ...requestView(original.request), webhookId: webhook.id, webhookName: webhook.name },
    retryOf: original.id,
    recoverJob: jobId,
    ...(possiblyDeliveredBefore ? { possiblyDeliveredBefore: true } : {}),
  };
  let outcome: AttemptOutcome;
  if (statusOf(webhook) !== 'enabled') {
    fields.skipped = true;
    outcome = skippedOutcome(webhook);
  } else {
    const pace = await throttle(webhook, message, 1);
    if (pace.kind === 'later')
      return deferToSlot({ ...message, slot: { attempt: 1, at: pace.slotAt } }, pace.delaySeconds, lease.id);
    outcome = await post(webhook, fields, deliveryTraceparent({}));
    observeAttempt(outcome, original.attempt);
  }
  const stored = await record(webhook, fields, outcome, writeDeadline(context.deadline));
  if (!stored || stored === 'duplicate') {
    // Made, not recorded: the lease stays, and the message comes back once it has run out to send
    // and record the re-send again.
    const seconds = Math.ceil(leaseMs / 1000) + 1;
    return retryIn(
      seconds,
      `re-send ${deliveryId} of job ${jobId} was made but not recorded; again in ${seconds} s`,
    );
  }
  if (!(await finishLease(lease.id, lease.holder, LEASE_TTL_DAYS)))
    logger.warn('re-send recorded after its lease was taken over', { ...ids, historyId: stored.id });
  logger.info('delivery re-sent by a recover job', {
    ...ids,
    statusCode: outcome.statusCode,
    historyId: stored.id,
  });
  return done();
}
