/**
 * The deliveries queue's handler: an automatic attempt of one (notification, webhook) pair, or a
 * recover job's re-send (./resend.ts). An attempt reads top to bottom: is it due, sign, send,
 * record, then what happens next — done, a retry in N seconds (the edge sets the message's
 * visibility), or the dead-letter queue. A disabled webhook's attempt is recorded as skipped (no
 * POST; a recover can send it); a throttled webhook's attempt waits for its slot (./throttle.ts); a
 * target that is gone (a 410 answer) disables the webhook (./auto-disable.ts). What follows an
 * attempt is decided by its outcome class (../outcome-class.ts), never by its status.
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
 * idempotency key. The same read tells a redelivered message whose earlier receive left no record
 * (killed mid-POST): its record says the receiver may have seen the `webhook-id` before (ADR 0014).
 *
 * An ordered webhook's delivery of a keyed notification comes from the ordered deliveries queue
 * (a FIFO group per webhook and key, ADR 0020): its attempt is counted from the history
 * (`orderedAttempt`), a retry, a throttled attempt and a paused webhook hold the key's head by
 * its visibility, and the key's later deliveries wait behind it.
 */
import { deadLetter, done, type MessageContext, type Next, retryIn } from '../../edge/queue/contract';
import { logger } from '../../observability/logger';
import { retrySchedule } from '../config';
import type { WebhookItem } from '../model';
import { outcomeClassOf } from '../outcome-class';
import { statusOf } from '../status';
import { type RecordedAttempt, recordedAttempts } from '../store/history';
import type { StoredHistoryRecord } from '../store/history-keys';
import { getWebhookItem } from '../store/webhooks';
import { type AttemptFields, record, send, signedRequest, skippedOutcome, writeDeadline } from './attempt';
import { autoDisable } from './auto-disable';
import { trackOutcome } from './health';
import type { DeliveryMessage, QueuedDelivery } from './message';
import { resend } from './resend';
import { nextStep } from './retry';
import { deliveryTraceparent, observeAttempt } from './telemetry';
import { deferToSlot, throttle } from './throttle';
import type { AttemptOutcome } from './transport';

/** One message of the deliveries queue: an automatic attempt of a delivery, or a recover job's re-send. */
export function deliver(queued: QueuedDelivery, context: MessageContext): Promise<Next> {
  return 'resend' in queued ? resend(queued, context) : attemptDelivery(queued, context);
}

/** One automatic attempt (its number from the edge: the attempts before plus the receive count). */
async function attemptDelivery(message: DeliveryMessage, context: MessageContext): Promise<Next> {
  const due = await dueAttempt(message, context);
  if (!due) return done();
  const { webhook, fields } = due;
  const ordered = context.groupId !== undefined;
  if (statusOf(webhook) !== 'enabled')
    return ordered ? holdWhilePaused(webhook, fields) : recordSkipped(webhook, fields, context);
  const pace = await throttle(webhook, message, fields.attempt);
  if (pace.kind === 'later')
    return ordered
      ? // SQS takes no per-message delay on a FIFO queue: the key's head waits for its slot.
        retryIn(pace.delaySeconds, 'throttled: the head of its key waits for a slot')
      : deferToSlot(
          { ...message, attemptBase: fields.attempt - 1, slot: { attempt: fields.attempt, at: pace.slotAt } },
          pace.delaySeconds,
        );
  const request = await signedRequest(
    webhook,
    message.deliveryId,
    fields.payload,
    deliveryTraceparent(message, context.traceHeader),
  );
  const outcome = await send(webhook, request, fields);
  observeAttempt(outcome, fields.attempt, message.notifiedAt);
  const stored = await recordAttempt(webhook, fields, outcome, context);
  if (stored === 'twin') return done();
  return afterAttempt(webhook, fields, outcome, stored);
}

/**
 * The attempt's webhook and record fields, or undefined when it must not be made: recorded
 * already, its delivery ended (delivered or gone), or its webhook deleted.
 */
async function dueAttempt(
  message: DeliveryMessage,
  context: MessageContext,
): Promise<{ webhook: WebhookItem; fields: AttemptFields } | undefined> {
  const { attempt } = context;
  const [recorded, webhook] = await Promise.all([
    recordedAttempts(message.deliveryId),
    getWebhookItem(message.webhookId),
  ]);
  const handled = alreadyHandled(attempt, recorded);
  if (handled) {
    logger.info('delivery message dropped', { deliveryId: message.deliveryId, attempt, reason: handled });
    return undefined;
  }
  if (!webhook) {
    logger.info('webhook deleted; delivery dropped', { deliveryId: message.deliveryId });
    return undefined;
  }
  const fields: AttemptFields = {
    deliveryId: message.deliveryId,
    attempt,
    activityId: message.activityId,
    notificationType: message.notificationType,
    ...(message.orderingKey !== undefined ? { orderingKey: message.orderingKey } : {}),
    payload: {
      text: message.text,
      metadata: message.metadata,
      webhookId: webhook.id,
      webhookName: webhook.name,
    },
  };
  // On a FIFO queue a message returned behind a failed head was received before without an
  // attempt of its own, so the receive count cannot tell a receive that died mid-POST (ADR 0020).
  if (context.groupId === undefined && earlierReceiveUnrecorded(attempt, context.redelivered, recorded)) {
    fields.possiblyDeliveredBefore = true;
    logger.warn(
      'redelivered attempt whose earlier receive left no record: recorded as possibly delivered before',
      { deliveryId: message.deliveryId, attempt },
    );
  }
  return { webhook, fields };
}

/** An attempt due while its webhook is disabled: recorded as skipped, no POST, and the delivery ends. */
async function recordSkipped(
  webhook: WebhookItem,
  fields: AttemptFields,
  context: MessageContext,
): Promise<Next> {
  const skipped = await record(
    webhook,
    { ...fields, skipped: true },
    skippedOutcome(webhook),
    writeDeadline(context.deadline),
  );
  logger.info('webhook disabled; attempt recorded as skipped', {
    deliveryId: fields.deliveryId,
    webhookId: webhook.id,
    attempt: fields.attempt,
    historyId: skipped === 'duplicate' ? undefined : skipped?.id,
  });
  return done();
}

/** How long a paused ordered webhook's key waits before its head is looked at again. */
const PAUSED_HOLD_SECONDS = 300;

/**
 * An ordered webhook's delivery due while the webhook is disabled: nothing is sent or recorded,
 * and the key waits — its head comes back every PAUSED_HOLD_SECONDS, the deliveries behind it
 * stay behind it — so everything goes out in order once the webhook is enabled (ADR 0020).
 */
function holdWhilePaused(webhook: WebhookItem, fields: AttemptFields): Next {
  logger.info('ordered webhook disabled; its key waits', {
    deliveryId: fields.deliveryId,
    webhookId: webhook.id,
    attempt: fields.attempt,
  });
  return retryIn(PAUSED_HOLD_SECONDS, 'the ordered webhook is disabled: its key waits');
}

/**
 * Records the POST: its record, undefined when the write kept failing (logged), or `twin` when a
 * twin POSTed at the same moment recorded this attempt first — then this POST gets a record of
 * its own (keyed by its id, like a manual retry), and the twin goes on with the schedule.
 */
async function recordAttempt(
  webhook: WebhookItem,
  fields: AttemptFields,
  outcome: AttemptOutcome,
  context: MessageContext,
): Promise<StoredHistoryRecord | 'twin' | undefined> {
  const stored = await record(webhook, fields, outcome, writeDeadline(context.deadline));
  if (stored !== 'duplicate') return stored;
  const twin = await record(webhook, { ...fields, twin: true }, outcome, writeDeadline(context.deadline));
  logger.warn('attempt POSTed by two messages at once; the second is recorded beside the first', {
    deliveryId: fields.deliveryId,
    attempt: fields.attempt,
    historyId: twin && twin !== 'duplicate' ? twin.id : undefined,
  });
  return 'twin';
}

/** What follows the attempt: the webhook's health, and done, a retry, or the dead-letter queue. */
async function afterAttempt(
  webhook: WebhookItem,
  fields: AttemptFields,
  outcome: AttemptOutcome,
  stored: StoredHistoryRecord | undefined,
): Promise<Next> {
  const { deliveryId, attempt } = fields;
  // A gone target disables the webhook below; it is no failure streak.
  if (outcome.outcomeClass !== 'gone') await trackOutcome(webhook, outcome.outcomeClass === 'delivered');
  const step = nextStep(attempt, outcome, retrySchedule());
  logger.info('delivery attempt', {
    deliveryId,
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
      await autoDisable(webhook.id, 'gone', `the receiver answered 410 Gone (delivery ${deliveryId})`);
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
  return redelivered && !recorded.some((r) => r.attempt === attempt - 1);
}

/**
 * The attempt an ordered delivery's message makes (ADR 0020): the one after its recorded
 * automatic attempts. On a FIFO queue the receive count also counts the receives of a message
 * returned behind a failed head, so the history counts instead.
 */
export async function orderedAttempt(queued: QueuedDelivery): Promise<number> {
  if ('resend' in queued) throw new Error('a re-send never goes to the ordered deliveries queue');
  const recorded = await recordedAttempts(queued.deliveryId);
  return Math.max(0, ...recorded.map((r) => r.attempt)) + 1;
}

/**
 * Why a message must not be POSTed, judged from the delivery's recorded automatic attempts: the
 * delivery ended with an attempt classed delivered or gone (a record without a class, by its status).
 */
export function alreadyHandled(attempt: number, recorded: readonly RecordedAttempt[]): string | undefined {
  if (recorded.some((r) => r.attempt >= attempt))
    return 'attempt already recorded (a duplicate or late message)';
  const ended = recorded.find((r) => outcomeClassOf(r) !== 'failed');
  if (ended) return `delivery already ended (attempt ${ended.attempt} answered ${ended.statusCode})`;
  return undefined;
}
