/**
 * What waits long on an ordered webhook leaves SQS for the store (ADR 0020, ../store/ordered-keys.ts):
 * - **parked**: a key whose head ran out of its schedule. Its head and every later delivery of
 *   the key are kept in order, nothing more is sent for it, and the owner hears of it
 *   (`webhookKeyParked`);
 * - **held**: a key whose webhook has been disabled longer than `orderedHoldAfterSeconds`;
 *   enabling the webhook drains it;
 * - **draining**: resumed or skipped by an operator (or its webhook enabled). The drain message,
 *   sent into the key's own FIFO group (./drain-message.ts), sends the key's waiting deliveries in
 *   order through the same attempt code; everything of the key that comes later waits behind it.
 *
 * A delivery of a key that has a state item is appended to the key's log instead of sent.
 */
import { createHash } from 'node:crypto';
import { done, type MessageContext, type Next, retryIn } from '../../edge/queue/contract';
import { describeError, logger } from '../../observability/logger';
import { orderedHoldAfterSeconds } from '../config';
import type { WebhookItem } from '../model';
import { statusOf } from '../status';
import { recordedAttempts } from '../store/history';
import {
  appendToKey,
  clearSkipOf,
  finishDrain,
  firstWaiting,
  keyState,
  type LogEntry,
  type OrderedKeyItem,
  parkFlowingKey,
  purgeKey,
  removeWaiting,
  stopDrain,
  waitingOf,
} from '../store/ordered-keys';
import { getWebhookItem } from '../store/webhooks';
import { type AttemptFields, record, writeDeadline } from './attempt';
import { alreadyHandled, attemptAfter, attemptFields, judge, makeAttempt } from './automatic-attempt';
import type { DeliveryMessage, DrainMessage } from './message';
import type { AttemptOutcome } from './transport';
import { publishWebhookNotice } from './webhook-notice';

/** How long a disabled ordered webhook's key waits before its head is looked at again (at most). */
const PAUSED_HOLD_SECONDS = 300;

const NEXT_ENTRY = 'the drain goes on with the next waiting delivery of its key';

type Keyed = DeliveryMessage & { orderingKey: string };

/**
 * A delivery of a key that is parked, held or draining waits in the key's log, behind its head:
 * true when it was appended (the message is done). False when the key flows again.
 */
export async function waitBehindStoppedKey(
  state: OrderedKeyItem,
  message: DeliveryMessage,
): Promise<boolean> {
  const appended = await appendToKey(state, message);
  if (appended)
    logger.info('ordered key not flowing: delivery waits in its log', {
      deliveryId: message.deliveryId,
      webhookId: message.webhookId,
      state: state.state,
    });
  return appended;
}

/** The head of a key ran out of its schedule: the key is parked with it as its first waiting delivery. */
export async function parkKey(
  webhook: WebhookItem,
  message: DeliveryMessage,
  attempt: number,
  outcome: AttemptOutcome,
): Promise<Next> {
  const keyed = message as Keyed;
  const lastError = lastErrorOf(outcome);
  if (await parkFlowingKey(keyed, 'parked', { headAttempts: attempt, lastError })) {
    await announceParked(webhook, keyed.orderingKey, message.deliveryId, attempt, lastError);
    return done();
  }
  // The key stopped meanwhile (its group runs one message at a time, so only by a crash and a
  // redelivery): this delivery waits behind it like any other.
  const state = await keyState(webhook.id, keyed.orderingKey);
  if (state && (await waitBehindStoppedKey(state, message))) return done();
  return retryIn(0, 'the key changed while it was parked: its head is looked at again');
}

/**
 * An ordered webhook's delivery due while the webhook is disabled: nothing is sent or recorded.
 * The key waits in its queue (its head comes back every PAUSED_HOLD_SECONDS, the deliveries
 * behind it stay behind it), and once the webhook has been disabled for `orderedHoldAfterSeconds`
 * the key is held in the store instead — long before the queue's retention — until enabling the
 * webhook drains it. Either way everything goes out in order once it is enabled again.
 */
export async function holdWhilePaused(
  webhook: WebhookItem,
  message: DeliveryMessage,
  fields: AttemptFields,
): Promise<Next> {
  const ids = { deliveryId: fields.deliveryId, webhookId: webhook.id, attempt: fields.attempt };
  const disabledFor =
    webhook.disabledAt === undefined ? 0 : (Date.now() - Date.parse(webhook.disabledAt)) / 1000;
  const holdAfter = orderedHoldAfterSeconds();
  if (
    disabledFor >= holdAfter &&
    (await parkFlowingKey(message as Keyed, 'held', { headAttempts: fields.attempt - 1 }))
  ) {
    logger.info('ordered webhook disabled: its key is held in the store until it is enabled', ids);
    return done();
  }
  logger.info('ordered webhook disabled; its key waits', ids);
  const wait = Math.max(1, Math.min(PAUSED_HOLD_SECONDS, Math.ceil(holdAfter - disabledFor)));
  return retryIn(wait, 'the ordered webhook is disabled: its key waits');
}

/**
 * The drain of a resumed or skipped key (or one held while its webhook was disabled): its waiting
 * deliveries in order, each through the same attempt code as any ordered delivery. A failing
 * entry holds the drain message (and so the key) by its visibility; a head whose schedule runs
 * out parks the key again; a disabled webhook holds it. When the log is empty the key flows again,
 * only if nothing was appended since it was read.
 */
export async function drainKey({ drain }: DrainMessage, context: MessageContext): Promise<Next> {
  const { webhookId, orderingKey } = drain;
  for (;;) {
    const [state, read] = await Promise.all([keyState(webhookId, orderingKey), getWebhookItem(webhookId)]);
    // A miss is read again, strongly consistent, before anything is removed on the strength of it.
    const webhook = read ?? (await getWebhookItem(webhookId, true));
    if (!webhook) {
      // The webhook was deleted (its deletion sends this message to each key it left stopped):
      // the key's state item and waiting deliveries go, a page of them a receive.
      if (!(await purgeKey(webhookId, orderingKey)))
        return retryIn(0, 'the purge of a deleted webhook’s key goes on with its next page');
      logger.info('webhook deleted: its ordered key’s state and waiting deliveries removed', {
        webhookId,
        wasState: state?.state,
      });
      return done();
    }
    // Drained already, or parked or held again: a drain message sent twice finds nothing to do.
    if (state?.state !== 'draining') return done();
    const head = await firstWaiting(webhookId, orderingKey);
    if (state.skipHead) {
      await skipHead(webhook, state, head, context);
      continue;
    }
    if (!head) {
      if (await finishDrain(state)) {
        logger.info('ordered key drained: it flows again', { webhookId, drained: state.removed });
        return done();
      }
      continue;
    }
    if (statusOf(webhook) !== 'enabled') {
      const recorded = await recordedAttempts(head.message.deliveryId);
      await stopDrain(webhookId, orderingKey, 'held', {
        deliveryId: head.message.deliveryId,
        attempts: attemptAfter(recorded) - 1,
      });
      logger.info('ordered webhook disabled: its draining key is held until it is enabled', { webhookId });
      return done();
    }
    const next = await sendHead(webhook, state, head, context);
    if (next) return next;
  }
}

/**
 * One attempt of the key's first waiting delivery, and what the drain message does next: after a
 * sent entry it comes back at once for the next one, so that each receive of it makes at most one
 * attempt, as a delivery message does (its visibility is what keeps the key's group to one
 * consumer, and it is sized for one attempt, not for a whole log). Undefined when the entry had
 * ended before: it is taken off and the drain goes on in this receive.
 */
async function sendHead(
  webhook: WebhookItem,
  state: OrderedKeyItem,
  head: LogEntry,
  context: MessageContext,
): Promise<Next | undefined> {
  const { webhookId, orderingKey } = state;
  const recorded = await recordedAttempts(head.message.deliveryId);
  const attempt = attemptAfter(recorded);
  const ended = alreadyHandled(attempt, recorded);
  if (ended) {
    logger.info('waiting delivery ended before: taken off its key', {
      deliveryId: head.message.deliveryId,
      ended,
    });
    await removeWaiting(webhookId, orderingKey, head.seq);
    return undefined;
  }
  const fields = attemptFields(webhook, head.message, attempt);
  const made = await makeAttempt(webhook, head.message, fields, context);
  if (made.kind === 'later')
    return retryIn(made.delaySeconds, 'throttled: the drain of its key waits for a slot');
  if (made.kind === 'twin') return retryIn(0, NEXT_ENTRY);
  // A resumed head's schedule starts over; its attempt numbers go on.
  const base = head.message.deliveryId === state.headDeliveryId ? (state.attemptBase ?? 0) : 0;
  const step = await judge(webhook, fields, made.outcome, made.stored, attempt - base);
  switch (step.kind) {
    case 'delivered':
    case 'gone':
      await removeWaiting(webhookId, orderingKey, head.seq);
      return retryIn(0, NEXT_ENTRY);
    case 'retry':
      return retryIn(
        step.delaySeconds,
        `attempt ${attempt} failed; the drain retries in ${step.delaySeconds} s`,
      );
    case 'exhausted': {
      const lastError = lastErrorOf(made.outcome);
      await stopDrain(webhookId, orderingKey, 'parked', {
        deliveryId: head.message.deliveryId,
        attempts: attempt,
        lastError,
      });
      await announceParked(webhook, orderingKey, head.message.deliveryId, attempt, lastError);
      return done();
    }
  }
}

/** A skip: the head is recorded as skipped (once, however often the drain runs) and taken off. */
async function skipHead(
  webhook: WebhookItem,
  state: OrderedKeyItem,
  head: LogEntry | undefined,
  context: MessageContext,
): Promise<void> {
  const { webhookId, orderingKey } = state;
  const target = state.skipHead?.deliveryId;
  if (head === undefined || head.message.deliveryId !== target) {
    // Taken off by an earlier run of this drain: only the mark is left.
    await clearSkipOf(webhookId, orderingKey);
    return;
  }
  const fields = {
    ...attemptFields(webhook, head.message, state.headAttempts + 1),
    keySkipped: true as const,
  };
  await record(webhook, fields, skippedByOperator(), writeDeadline(context.deadline));
  logger.info('head of a parked key skipped', {
    deliveryId: target,
    webhookId,
    waiting: waitingOf(state) - 1,
  });
  await removeWaiting(webhookId, orderingKey, head.seq, true);
}

/** The recorded outcome of a head given up by a skip: never sent. */
function skippedByOperator(): AttemptOutcome {
  return {
    statusCode: 0,
    response: {
      body: {
        code: 'EKEYSKIPPED',
        connect: false,
        message: 'not sent: skipped by an operator while its ordering key was parked',
      },
    },
    outcomeClass: 'failed',
    delivered: false,
    durationMs: 0,
    failureCode: 'EKEYSKIPPED',
  };
}

/** A short description of why the head's last attempt failed: its status, or the failure without one. */
function lastErrorOf(outcome: AttemptOutcome): string {
  return outcome.statusCode === 0 ? (outcome.failureCode ?? 'no answer') : `HTTP ${outcome.statusCode}`;
}

/** Tells the owner (and global subscribers) that a key was parked; errors are logged, never thrown. */
async function announceParked(
  webhook: WebhookItem,
  orderingKey: string,
  headDeliveryId: string,
  attempts: number,
  lastError: string,
): Promise<void> {
  const keyDigest = createHash('sha256').update(orderingKey).digest('hex').slice(0, 32);
  try {
    await publishWebhookNotice(webhook, {
      // One notification per parking of a head, however often this runs for it.
      id: `webhook-key-parked:${webhook.id}:${keyDigest}:${headDeliveryId}:${attempts}`,
      notificationType: 'webhookKeyParked',
      text: `Webhook ${webhook.id} (${webhook.name}): ordering key ${JSON.stringify(orderingKey)} was parked after ${attempts} attempts (${lastError}); resume or skip it.`,
      metadata: { orderingKey, headDeliveryId, attempts, lastError },
    });
  } catch (error) {
    logger.error('webhookKeyParked notification not published', {
      webhookId: webhook.id,
      ...describeError(error),
    });
  }
  logger.warn('ordered key parked: its schedule ran out', {
    webhookId: webhook.id,
    headDeliveryId,
    attempts,
  });
}
