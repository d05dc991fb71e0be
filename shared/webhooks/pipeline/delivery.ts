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
 * (a FIFO group per webhook and key, ADR 0020): its attempt is counted from the history (the
 * records the due check reads anyway), a retry, a throttled attempt and a paused webhook hold the
 * key's head by its visibility, and the key's later deliveries wait behind it. A key whose
 * schedule ran out is parked, and one whose webhook stayed disabled is held, in the store
 * (./parking.ts): its later deliveries are appended there, in order.
 */
import { deadLetter, done, type MessageContext, type Next, retryIn } from '../../edge/queue/contract';
import { logger } from '../../observability/logger';
import type { WebhookItem } from '../model';
import { statusOf } from '../status';
import { type RecordedAttempt, recordedAttempts } from '../store/history';
import { keyState } from '../store/ordered-keys';
import { getWebhookItem } from '../store/webhooks';
import { type AttemptFields, record, skippedOutcome, writeDeadline } from './attempt';
import { alreadyHandled, attemptAfter, attemptFields, judge, makeAttempt } from './automatic-attempt';
import type { DeliveryMessage, QueuedDelivery } from './message';
import { drainKey, holdWhilePaused, parkKey, waitBehindStoppedKey } from './parking';
import { resend } from './resend';
import type { NextStep } from './retry';
import { deferToSlot } from './throttle';
import type { AttemptOutcome } from './transport';

/**
 * One message of the deliveries queues: an automatic attempt of a delivery, a recover job's
 * re-send, or (ordered deliveries queue) the drain of a resumed or skipped key.
 */
export function deliver(queued: QueuedDelivery, context: MessageContext): Promise<Next> {
  if ('resend' in queued) return resend(queued, context);
  if ('drain' in queued) return drainKey(queued, context);
  return attemptDelivery(queued, context);
}

/** One automatic attempt (its number from the edge, or for an ordered delivery from its history). */
async function attemptDelivery(message: DeliveryMessage, context: MessageContext): Promise<Next> {
  const ordered = context.groupId !== undefined;
  const [stopped, due] = await Promise.all([
    ordered && message.orderingKey !== undefined
      ? keyState(message.webhookId, message.orderingKey)
      : undefined,
    dueAttempt(message, context),
  ]);
  // A parked, held or draining key: the delivery waits in the key's log, behind its head.
  if (stopped && (await waitBehindStoppedKey(stopped, message))) return done();
  if (!due) return done();
  const { webhook, fields } = due;
  if (statusOf(webhook) !== 'enabled')
    return ordered ? holdWhilePaused(webhook, message, fields) : recordSkipped(webhook, fields, context);
  const made = await makeAttempt(webhook, message, fields, context);
  switch (made.kind) {
    case 'later':
      return ordered
        ? // SQS takes no per-message delay on a FIFO queue: the key's head waits for its slot.
          retryIn(made.delaySeconds, 'throttled: the head of its key waits for a slot')
        : deferToSlot(
            {
              ...message,
              attemptBase: fields.attempt - 1,
              slot: { attempt: fields.attempt, at: made.slotAt },
            },
            made.delaySeconds,
          );
    case 'twin':
      return done();
    case 'sent': {
      const step = await judge(webhook, fields, made.outcome, made.stored);
      if (step.kind === 'exhausted' && ordered)
        return parkKey(webhook, message, fields.attempt, made.outcome);
      return nextOf(step, fields.attempt, made.outcome);
    }
  }
}

/**
 * The attempt's webhook and record fields, or undefined when it must not be made: recorded
 * already, its delivery ended (delivered or gone), or its webhook deleted. On a FIFO queue the
 * receive count also counts the receives of a message returned behind a failed head, so an
 * ordered delivery's attempt is the one after its recorded attempts.
 */
async function dueAttempt(
  message: DeliveryMessage,
  context: MessageContext,
): Promise<{ webhook: WebhookItem; fields: AttemptFields } | undefined> {
  const [recorded, webhook] = await Promise.all([
    recordedAttempts(message.deliveryId),
    getWebhookItem(message.webhookId),
  ]);
  const attempt = context.groupId === undefined ? context.attempt : attemptAfter(recorded);
  const handled = alreadyHandled(attempt, recorded);
  if (handled) {
    logger.info('delivery message dropped', { deliveryId: message.deliveryId, attempt, reason: handled });
    return undefined;
  }
  if (!webhook) {
    logger.info('webhook deleted; delivery dropped', { deliveryId: message.deliveryId });
    return undefined;
  }
  const fields = attemptFields(webhook, message, attempt);
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

/** The message's next step after an attempt of an unordered delivery: done, a retry, or the dead-letter queue. */
function nextOf(step: NextStep, attempt: number, outcome: AttemptOutcome): Next {
  switch (step.kind) {
    case 'delivered':
    case 'gone':
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

/** Why a message must not be POSTed (./automatic-attempt.ts): the delivery rules' tests read it here. */
export { alreadyHandled };
