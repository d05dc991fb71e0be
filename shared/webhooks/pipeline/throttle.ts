/**
 * Throttled webhooks (`maxDeliveriesPerSecond`): every attempt takes a slot of the webhook's
 * delivery clock (store/throttle.ts) before its POST. A slot at most SLEEP_MAX_MS away is waited
 * for in the invocation; a later one sends the delivery again as a new message, delayed until
 * its slot has come (SQS per-message delay in whole seconds, so it is POSTed less than a second
 * after its slot; at most 15 minutes a hop, so a far slot is reached in several hops that keep
 * the reservation). Waiting longer in the invocation would hold its whole batch, and with it the
 * other webhooks' deliveries in that batch, for the wait (bench figure 11). The new message carries the attempts already made and
 * its slot, so attempt numbers, the retry schedule and the DLQ backstop are unchanged: a throttled
 * delivery is delayed, never failed or dropped. A webhook without a limit skips all of this.
 */

import { setTimeout as sleep } from 'node:timers/promises';
import { type Next, sendAgain } from '../../edge/queue/contract';
import { logger } from '../../observability/logger';
import type { WebhookItem } from '../model';
import { unmark } from '../store/dedup';
import { reserveDeliverySlot } from '../store/throttle';
import { MIN_DELIVERIES_PER_SECOND } from '../throttle-limits';
import type { DeliveryMessage, ResendMessage } from './message';

/** Waits up to this long in the invocation rather than re-queueing: a small share of a POST. */
const SLEEP_MAX_MS = 50;

export type ThrottleStep = { kind: 'now' } | { kind: 'later'; delaySeconds: number; slotAt: number };

/**
 * The delivery clock's step for a limit, in whole milliseconds (rounded up: never faster than the
 * limit), so the clock stays an integer well inside the safe range. A limit stored below today's
 * minimum (before it existed) is read as the minimum.
 */
export function slotIntervalMs(rate: number): number {
  return Math.ceil(1000 / Math.max(rate, MIN_DELIVERIES_PER_SECOND));
}

/**
 * Whether attempt `attempt` of `message` may be POSTed now (after a short wait), or must come
 * back later: then the caller sends it again carrying `slot: {attempt, at: slotAt}`.
 */
export async function throttle(
  webhook: Pick<WebhookItem, 'id' | 'maxDeliveriesPerSecond'>,
  message: Pick<DeliveryMessage, 'slot'>,
  attempt: number,
): Promise<ThrottleStep> {
  const rate = webhook.maxDeliveriesPerSecond;
  if (rate === undefined) return { kind: 'now' };
  const slotAt =
    message.slot?.attempt === attempt
      ? message.slot.at
      : await reserveDeliverySlot(webhook.id, slotIntervalMs(rate));
  const wait = slotAt - Date.now();
  if (wait <= SLEEP_MAX_MS) {
    if (wait > 0) await sleep(wait);
    return { kind: 'now' };
  }
  return { kind: 'later', delaySeconds: Math.ceil(wait / 1000), slotAt };
}

/**
 * A throttled message, sent again for its slot: this message is done and one carrying the slot
 * takes its place (a re-send gives its lease up first; the new message takes it again).
 */
export async function deferToSlot(
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
