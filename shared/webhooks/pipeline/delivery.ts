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
import type { Context } from 'aws-lambda';
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
import { markOnce, unmark } from '../store/dedup';
import {
  getHistoryItem,
  type HistoryKey,
  newHistoryItem,
  putHistoryItem,
  type RecordedAttempt,
  recordedAttempts,
} from '../store/history';
import { historyView, requestView, type StoredHistoryRecord } from '../store/history-keys';
import { countResent } from '../store/jobs';
import { getWebhookItem } from '../store/webhooks';
import { autoDisable } from './auto-disable';
import { trackOutcome } from './health';
import type { DeliveryMessage, QueuedDelivery, ResendMessage } from './message';
import { nextStep } from './retry';
import { webhookHeaders } from './signing';
import { deliveryTraceparent, observeAttempt } from './telemetry';
import { throttle } from './throttle';
import { type AttemptOutcome, postWebhook } from './transport';

/** Days a re-send marker is kept: longer than a message can live on the deliveries queue (14 days). */
const MARKER_TTL_DAYS = 15;

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

/** Why a message must not be POSTed, judged from the delivery's recorded automatic attempts. */
export function alreadyHandled(attempt: number, recorded: readonly RecordedAttempt[]): string | undefined {
  if (recorded.some((r) => r.seq >= attempt)) return 'attempt already recorded (a duplicate or late message)';
  const ended = recorded.find((r) => (r.statusCode >= 200 && r.statusCode < 300) || r.statusCode === 410);
  if (ended) return `delivery already ended (attempt ${ended.seq} answered ${ended.statusCode})`;
  return undefined;
}

/** A throttled message, sent again for its slot (a re-send's marker is removed; the new message marks it). */
async function deferToSlot(
  message: DeliveryMessage | ResendMessage,
  delaySeconds: number,
  markerId?: string,
): Promise<Next> {
  if (markerId !== undefined) await unmark(markerId);
  logger.info('throttled delivery sent again for its slot', {
    ...(markerId !== undefined ? { marker: markerId } : {}),
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
 * A recover job's re-send (./recover.ts): the record's request, sent once (marker
 * `resend#<job>#<delivery>`) to the webhook's current URL under the original `webhook-id`,
 * recorded as a new record with `retryOf`, never retried automatically. A disabled webhook's
 * re-send is recorded as skipped; a throttled one waits for its slot like any delivery.
 */
async function processResend(message: ResendMessage, context: MessageContext): Promise<Next> {
  const { jobId, deliveryId, seq } = message.resend;
  const markerId = `resend#${jobId}#${deliveryId}`;
  const [marked, original, webhook] = await Promise.all([
    markOnce(markerId, MARKER_TTL_DAYS),
    getHistoryItem({ deliveryId, seq }),
    getWebhookItem(message.webhookId),
  ]);
  if (!marked || !original || !webhook) {
    logger.info('re-send dropped', {
      jobId,
      deliveryId,
      marked,
      recordFound: !!original,
      webhookFound: !!webhook,
    });
    return done();
  }
  const fields: AttemptFields = {
    deliveryId,
    attempt: original.attempt,
    activityId: original.webhooksActivityId,
    notificationType: original.notificationType,
    payload: { ...requestView(original.request), webhookId: webhook.id, webhookName: webhook.name },
    retryOf: original.id,
  };
  let outcome: AttemptOutcome;
  if (statusOf(webhook) !== 'enabled') {
    fields.skipped = true;
    outcome = skippedOutcome(webhook);
  } else {
    const pace = await throttle(webhook, message, 1);
    if (pace.kind === 'later')
      return deferToSlot({ ...message, slot: { attempt: 1, at: pace.slotAt } }, pace.delaySeconds, markerId);
    outcome = await post(webhook, deliveryId, fields.payload, deliveryTraceparent({}));
    observeAttempt(outcome, original.attempt);
  }
  const stored = await record(webhook, fields, outcome, writeDeadlineBefore(context.deadline));
  if (stored && stored !== 'duplicate') await countResent(jobId);
  logger.info('delivery re-sent by a recover job', {
    jobId,
    deliveryId,
    webhookId: webhook.id,
    statusCode: outcome.statusCode,
    historyId: stored && stored !== 'duplicate' ? stored.id : undefined,
  });
  return done();
}
