/**
 * Delivering one (notification, webhook) pair: sign, POST, record the attempt, then either
 * finish, schedule the next attempt by message visibility, or dead-letter the delivery. A
 * disabled webhook's attempt is recorded as skipped (no POST; a recover can send it); a
 * throttled webhook's attempt waits for its slot (./throttle.ts); a 410 answer disables the
 * webhook (./auto-disable.ts).
 *
 * One POST per attempt (ADR 0012): a strongly consistent read of the delivery's records before
 * the POST drops a message whose attempt is recorded or whose delivery has ended (a duplicate
 * message, one that came back after its consumer timed out). Fan-out never enqueues one delivery
 * twice at once (its steps run under a lease), so a twin message can only come from an SQS
 * duplicate or a fan-out step redone after its holder died, minutes later. The record's PutItem
 * is conditional on its key `(deliveryId, attempt)`: a twin that was POSTed at the same moment as
 * its original (the one case the read cannot see) is recorded as a record of its own, so every
 * POST has its record. No marker is written per attempt: it would cost a fifth of the write
 * units of every attempt (issue 23's budget is 4) to close a window this narrow, and the receiver
 * can tell the two POSTs apart by their one `webhook-id`, which Standard Webhooks makes the
 * idempotency key.
 *
 * Once a POST was made its outcome is recorded: a failed history write is retried (never the
 * POST) until shortly before the invocation's deadline, and the message's next step does not
 * depend on it — a write failure never brings the message back for another POST.
 */
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { queueDef } from '../../catalog/queues';
import {
  deadLetter,
  done,
  type MessageContext,
  type Next,
  retryIn,
  sendAgain,
} from '../../edge/queue/contract';
import { NotFoundError } from '../../errors';
import { describeError, logger } from '../../observability/logger';
import { sleep } from '../../store/read';
import { retrySchedule } from '../config';
import type { DeliveryPayload, HistoryRecord, WebhookItem } from '../model';
import { signingSecrets } from '../secrets';
import { statusOf } from '../status';
import { finishLease, finishStep, takeStep, unmark } from '../store/dedup';
import {
  getHistoryItem,
  type HistoryKey,
  newHistoryItem,
  putHistoryItem,
  type RecordedAttempt,
  recordedAttempts,
  resendRecorded,
} from '../store/history';
import { historyView, requestView, type StoredHistoryRecord } from '../store/history-keys';
import { getWebhookItem } from '../store/webhooks';
import { autoDisable } from './auto-disable';
import { trackOutcome } from './health';
import type { DeliveryMessage, QueuedDelivery, ResendMessage } from './message';
import { nextStep } from './retry';
import { webhookHeaders } from './signing';
import { deliveryTraceparent, observeAttempt } from './telemetry';
import { throttle } from './throttle';
import { type AttemptOutcome, postWebhook } from './transport';

/** Days a re-send lease is kept: longer than a message can live on the deliveries queue (14 days). */
const MARKER_TTL_DAYS = 15;
/** A re-send's lease: longer than the deliveries consumer may run (Lambda ends it at its timeout). */
const RESEND_LEASE_MS = (queueDef('deliveries').consumer.timeoutSeconds + 5) * 1000;

/** POSTs the payload to the webhook's URL, signed with its live secrets. */
export async function post(
  webhook: WebhookItem,
  deliveryId: string,
  payload: DeliveryPayload,
  traceparent: string,
): Promise<AttemptOutcome> {
  const body = JSON.stringify(payload);
  const secrets = await signingSecrets(webhook);
  return postWebhook(webhook.url, body, { ...webhookHeaders(deliveryId, body, secrets), traceparent });
}

/** The recorded outcome of an attempt that was due while its webhook was disabled: no POST. */
function skippedOutcome(webhook: WebhookItem): AttemptOutcome {
  const why = webhook.disabledReason ? `: ${webhook.disabledReason}` : '';
  return {
    statusCode: 0,
    response: {
      body: { code: 'EWEBHOOKDISABLED', connect: false, message: `not sent, the webhook is disabled${why}` },
    },
    delivered: false,
    durationMs: 0,
    failureCode: 'EWEBHOOKDISABLED',
  };
}

/** Time kept free after the last history write try: the message's next step still has to run. */
const RESERVED_MS = 8_000;
/** Without an invocation deadline (direct calls), history writes are retried for this long. */
const DEFAULT_WRITE_BUDGET_MS = 20_000;

/** Until when a history write may be retried in this invocation (epoch ms). */
export function writeDeadline(context: Pick<Context, 'getRemainingTimeInMillis'> | undefined): number {
  const remaining = context ? context.getRemainingTimeInMillis() - RESERVED_MS : DEFAULT_WRITE_BUDGET_MS;
  return Date.now() + Math.max(0, remaining);
}

/** The same for a queued message, from its invocation's deadline (epoch ms). */
const writeDeadlineBefore = (deadline: number): number => Math.max(Date.now(), deadline - RESERVED_MS);

export interface AttemptFields {
  deliveryId: string;
  attempt: number;
  activityId: number;
  notificationType: string;
  payload: DeliveryPayload;
  retryOf?: number;
  test?: true;
  skipped?: true;
  /** A second POST of an attempt already recorded (a twin message): keyed by its own id. */
  twin?: true;
  /** An earlier try of this attempt ended without a record: the receiver may have seen it. */
  possiblyDeliveredBefore?: true;
  /** A recover job's re-send: the job. */
  recoverJob?: string;
}

/**
 * Records a POST's outcome, retrying the write with jittered exponential back-off until
 * `deadline`: the stored record, `duplicate` when another message of the same attempt recorded
 * it first, or undefined when it could still not be stored (logged as an error with the ids).
 */
export async function record(
  webhook: WebhookItem,
  fields: AttemptFields,
  outcome: AttemptOutcome,
  deadline: number,
): Promise<StoredHistoryRecord | 'duplicate' | undefined> {
  const fresh = () =>
    newHistoryItem({
      request: fields.payload,
      response: outcome.response,
      statusCode: outcome.statusCode,
      durationMs: outcome.durationMs,
      notificationType: fields.notificationType,
      webhooksActivityId: fields.activityId,
      webhooksId: webhook.id,
      url: webhook.url,
      name: webhook.name,
      actionType: webhook.actionType ?? null,
      createdBy: webhook.createdBy,
      deliveryId: fields.deliveryId,
      attempt: fields.attempt,
      global: webhook.global,
      ...(fields.retryOf !== undefined ? { retryOf: fields.retryOf } : {}),
      ...(fields.test ? { test: true } : {}),
      ...(fields.skipped ? { skipped: true } : {}),
      ...(fields.twin ? { twin: true } : {}),
      ...(fields.possiblyDeliveredBefore ? { possiblyDeliveredBefore: true } : {}),
      ...(fields.recoverJob !== undefined ? { recoverJob: fields.recoverJob } : {}),
    });
  // Built once (its id is its time), then written until it stores.
  let item: StoredHistoryRecord | undefined;
  for (let round = 0; ; round++) {
    try {
      item ??= await fresh();
      return (await putHistoryItem(item)) === 'stored' ? item : 'duplicate';
    } catch (error) {
      const pause = Math.random() * Math.min(2_000, 100 * 2 ** round);
      const ids = { deliveryId: fields.deliveryId, attempt: fields.attempt, webhookId: webhook.id };
      if (Date.now() + pause > deadline) {
        logger.error('history record not stored: the POST was made, its write kept failing', {
          ...ids,
          statusCode: outcome.statusCode,
          tries: round + 1,
          ...describeError(error),
        });
        return undefined;
      }
      logger.warn('history write failed; retrying the write (not the POST)', {
        ...ids,
        ...describeError(error),
      });
      await sleep(pause);
    }
  }
}

/**
 * Whether a redelivered message's earlier receive left no record (ADR 0014): it was received
 * before, and the attempt before this one — which that receive made — is not in the history. It
 * may have POSTed and died before its write (a crash, a timeout), so the receiver may have seen
 * this `webhook-id` already. Told by the read the consumer makes anyway: no write before the POST.
 */
export function earlierReceiveUnrecorded(
  attempt: number,
  redelivered: boolean,
  recorded: readonly RecordedAttempt[],
): boolean {
  return redelivered && !recorded.some((r) => r.seq === attempt - 1);
}

/** Why a message must not be POSTed, judged from the delivery's recorded automatic attempts. */
export function alreadyHandled(attempt: number, recorded: readonly RecordedAttempt[]): string | undefined {
  if (recorded.some((r) => r.seq >= attempt)) return 'attempt already recorded (a duplicate or late message)';
  const ended = recorded.find((r) => (r.statusCode >= 200 && r.statusCode < 300) || r.statusCode === 410);
  if (ended) return `delivery already ended (attempt ${ended.seq} answered ${ended.statusCode})`;
  return undefined;
}

/** A throttled message, sent again for its slot (a re-send gives its lease up; the new message takes it). */
async function deferToSlot(
  message: DeliveryMessage | ResendMessage,
  delaySeconds: number,
  leaseId?: string,
): Promise<Next> {
  if (leaseId !== undefined) await unmark(leaseId);
  logger.info('throttled delivery sent again for its slot', {
    ...(leaseId !== undefined ? { lease: leaseId } : {}),
    webhookId: message.webhookId,
    slotAt: new Date(message.slot?.at ?? 0).toISOString(),
  });
  return sendAgain(message, delaySeconds, 'throttled: sent again for its slot');
}

/** One message of the deliveries queue: an automatic attempt of a delivery, or a recover job's re-send. */
export function deliver(queued: QueuedDelivery, context: MessageContext): Promise<Next> {
  return 'resend' in queued ? processResend(queued, context) : processDelivery(queued, context);
}

/** One automatic attempt of a delivery (its number from the edge: attempts before + receive count). */
async function processDelivery(message: DeliveryMessage, context: MessageContext): Promise<Next> {
  const { attempt } = context;
  const [recorded, webhook] = await Promise.all([
    recordedAttempts(message.deliveryId),
    getWebhookItem(message.webhookId),
  ]);
  const handled = alreadyHandled(attempt, recorded);
  if (handled) {
    logger.info('delivery message dropped', { deliveryId: message.deliveryId, attempt, reason: handled });
    return done();
  }
  if (!webhook) {
    logger.info('webhook deleted; delivery dropped', { deliveryId: message.deliveryId });
    return done();
  }
  const payload: DeliveryPayload = {
    text: message.text,
    metadata: message.metadata,
    webhookId: webhook.id,
    webhookName: webhook.name,
  };
  const fields: AttemptFields = {
    deliveryId: message.deliveryId,
    attempt,
    activityId: message.activityId,
    notificationType: message.notificationType,
    payload,
  };
  if (earlierReceiveUnrecorded(attempt, context.redelivered, recorded)) {
    fields.possiblyDeliveredBefore = true;
    logger.warn(
      'redelivered attempt whose earlier receive left no record: recorded as possibly delivered before',
      {
        deliveryId: message.deliveryId,
        attempt,
      },
    );
  }
  if (statusOf(webhook) !== 'enabled') {
    const skipped = await record(
      webhook,
      { ...fields, skipped: true },
      skippedOutcome(webhook),
      writeDeadlineBefore(context.deadline),
    );
    logger.info('webhook disabled; attempt recorded as skipped', {
      deliveryId: message.deliveryId,
      webhookId: webhook.id,
      attempt,
      historyId: skipped === 'duplicate' ? undefined : skipped?.id,
    });
    return done();
  }
  const pace = await throttle(webhook, message, attempt);
  if (pace.kind === 'later')
    return deferToSlot(
      { ...message, attemptBase: attempt - 1, slot: { attempt, at: pace.slotAt } },
      pace.delaySeconds,
    );
  const outcome = await post(
    webhook,
    message.deliveryId,
    payload,
    deliveryTraceparent(message, context.traceHeader),
  );
  observeAttempt(outcome, attempt, message.notifiedAt);
  const stored = await record(webhook, fields, outcome, writeDeadlineBefore(context.deadline));
  if (stored === 'duplicate') {
    // A twin POSTed at the same moment recorded this attempt first: this POST gets a record of
    // its own (keyed by its id, like a manual retry), and the twin goes on with the schedule.
    const twin = await record(
      webhook,
      { ...fields, twin: true },
      outcome,
      writeDeadlineBefore(context.deadline),
    );
    logger.warn('attempt POSTed by two messages at once; the second is recorded beside the first', {
      deliveryId: message.deliveryId,
      attempt,
      historyId: twin && twin !== 'duplicate' ? twin.id : undefined,
    });
    return done();
  }
  if (outcome.statusCode !== 410) await trackOutcome(webhook, outcome.delivered);
  const schedule = retrySchedule();
  const step = nextStep(attempt, outcome, schedule);
  logger.info('delivery attempt', {
    deliveryId: message.deliveryId,
    webhookId: webhook.id,
    attempt,
    statusCode: outcome.statusCode,
    durationMs: outcome.durationMs,
    historyId: stored?.id,
    next: step.kind,
  });
  switch (step.kind) {
    case 'delivered':
      return done();
    case 'gone':
      await autoDisable(
        webhook.id,
        'gone',
        `the receiver answered 410 Gone (delivery ${message.deliveryId})`,
      );
      return done();
    case 'retry':
      return retryIn(step.delaySeconds, `attempt ${attempt} failed; retry in ${step.delaySeconds} s`);
    case 'exhausted':
      return deadLetter(
        `retry schedule exhausted after ${attempt} attempts; last status ${outcome.statusCode}`,
      );
  }
}

/**
 * Re-sends a stored record's request to its webhook now (same `webhook-id`) and records the
 * attempt as a new history record. Runs in the webhook sender function; the API route has
 * already found the record among those the caller may see (`shared/webhooks/api/retry.ts`).
 */
export async function resendHistoryRecord(key: HistoryKey, context?: Context): Promise<HistoryRecord> {
  const original = await getHistoryItem(key);
  if (!original) throw new NotFoundError(`history record ${key.deliveryId}/${key.seq} not found`);
  const webhook = await getWebhookItem(original.webhooksId);
  if (!webhook)
    throw new NotFoundError(
      `webhook ${original.webhooksId} of history record ${original.id} no longer exists`,
    );
  const payload = requestView(original.request);
  const outcome = await post(webhook, original.deliveryId, payload, deliveryTraceparent({}));
  const created = await record(
    webhook,
    {
      deliveryId: original.deliveryId,
      attempt: original.attempt,
      activityId: original.webhooksActivityId,
      notificationType: original.notificationType,
      payload,
      retryOf: original.id,
    },
    outcome,
    writeDeadline(context),
  );
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
async function processResend(message: ResendMessage, context: MessageContext): Promise<Next> {
  const { jobId, deliveryId, seq } = message.resend;
  const lease = { id: `resend#${jobId}#${deliveryId}`, holder: randomUUID() };
  const [claim, original, webhook] = await Promise.all([
    takeStep(lease.id, RESEND_LEASE_MS, MARKER_TTL_DAYS, Date.now(), lease.holder),
    getHistoryItem({ deliveryId, seq }),
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
    await finishStep(lease.id, MARKER_TTL_DAYS);
    return done();
  }
  let possiblyDeliveredBefore = false;
  if (claim.takenOver) {
    if (await resendRecorded(deliveryId, jobId)) {
      // The holder that died had recorded it: only the lease was left to make final.
      await finishLease(lease.id, lease.holder, MARKER_TTL_DAYS);
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
    outcome = await post(webhook, deliveryId, fields.payload, deliveryTraceparent({}));
    observeAttempt(outcome, original.attempt);
  }
  const stored = await record(webhook, fields, outcome, writeDeadlineBefore(context.deadline));
  if (!stored || stored === 'duplicate') {
    // Made, not recorded: the lease stays, and the message comes back once it has run out to send
    // and record the re-send again.
    const seconds = Math.ceil(RESEND_LEASE_MS / 1000) + 1;
    return retryIn(
      seconds,
      `re-send ${deliveryId} of job ${jobId} was made but not recorded; again in ${seconds} s`,
    );
  }
  if (!(await finishLease(lease.id, lease.holder, MARKER_TTL_DAYS)))
    logger.warn('re-send recorded after its lease was taken over', { ...ids, historyId: stored.id });
  logger.info('delivery re-sent by a recover job', {
    ...ids,
    statusCode: outcome.statusCode,
    historyId: stored.id,
  });
  return done();
}
