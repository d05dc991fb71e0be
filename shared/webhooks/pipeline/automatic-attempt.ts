/**
 * One automatic attempt of a delivery, the steps every automatic sender shares — the unordered
 * and ordered delivery paths (./delivery.ts) and the drain of a parked key (./parking.ts): its
 * number and record fields, whether it is still due, the attempt itself (throttle slot, sign,
 * send, record), and the judgement of its outcome (health, a gone target, the retry schedule).
 */
import type { MessageContext } from '../../edge/queue/contract';
import { noteInBatch } from '../../observability/batch-notes';
import { logger } from '../../observability/logger';
import { retrySchedule } from '../config';
import type { WebhookItem } from '../model';
import { outcomeClassOf } from '../outcome-class';
import type { RecordedAttempt } from '../store/history';
import type { StoredHistoryRecord } from '../store/history-keys';
import { type AttemptFields, record, send, signedRequest, writeDeadline } from './attempt';
import { autoDisable } from './auto-disable';
import { trackOutcome } from './health';
import type { DeliveryMessage } from './message';
import { type NextStep, nextStep } from './retry';
import { deliveryTraceparent, observeAttempt } from './telemetry';
import { throttle } from './throttle';
import type { AttemptOutcome } from './transport';

/** What one attempt came to: sent (and recorded), its webhook's throttle has no slot yet, or a twin's. */
export type MadeAttempt =
  | { kind: 'sent'; outcome: AttemptOutcome; stored: StoredHistoryRecord | undefined }
  | { kind: 'later'; delaySeconds: number; slotAt: number }
  | { kind: 'twin' };

/** Takes the webhook's throttle slot, signs, sends and records one attempt. */
export async function makeAttempt(
  webhook: WebhookItem,
  message: DeliveryMessage,
  fields: AttemptFields,
  context: MessageContext,
): Promise<MadeAttempt> {
  const pace = await throttle(webhook, message, fields.attempt);
  if (pace.kind === 'later') return pace;
  const request = await signedRequest(
    webhook,
    message.deliveryId,
    fields.payload,
    deliveryTraceparent(message, context.traceHeader),
  );
  const outcome = await send(webhook, request, fields);
  observeAttempt(outcome, fields.attempt, message.notifiedAt);
  const stored = await recordAttempt(webhook, fields, outcome, context);
  return stored === 'twin' ? { kind: 'twin' } : { kind: 'sent', outcome, stored };
}

/** The record fields of an automatic attempt of `message` to `webhook`. */
export function attemptFields(
  webhook: WebhookItem,
  message: DeliveryMessage,
  attempt: number,
): AttemptFields {
  return {
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
}

/** The attempt after a delivery's recorded automatic attempts (how an ordered delivery counts, ADR 0020). */
export const attemptAfter = (recorded: readonly RecordedAttempt[]): number =>
  Math.max(0, ...recorded.map((r) => r.attempt)) + 1;

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

/**
 * What follows the attempt, judged and logged: the webhook's health is tracked, a gone target
 * disables it, and the step says whether the delivery is done, retried, or out of attempts.
 * `scheduleAttempt` is the attempt's place in the schedule (a resumed key's head starts over).
 */
export async function judge(
  webhook: WebhookItem,
  fields: AttemptFields,
  outcome: AttemptOutcome,
  stored: StoredHistoryRecord | undefined,
  scheduleAttempt = fields.attempt,
): Promise<NextStep> {
  const { deliveryId, attempt } = fields;
  // A gone target disables the webhook below; it is no failure streak.
  if (outcome.outcomeClass !== 'gone') await trackOutcome(webhook, outcome.outcomeClass === 'delivered');
  const step = nextStep(scheduleAttempt, outcome, retrySchedule());
  // A delivered attempt is named in its batch's line (its history record has the rest); any other
  // outcome, and an attempt outside a batch, gets a line of its own.
  if (step.kind !== 'delivered' || !noteInBatch('delivered', deliveryId))
    logger.info('delivery attempt', {
      deliveryId,
      webhookId: webhook.id,
      attempt,
      statusCode: outcome.statusCode,
      durationMs: outcome.durationMs,
      historyId: stored?.id,
      next: step.kind,
    });
  if (step.kind === 'gone')
    await autoDisable(webhook.id, 'gone', `the receiver answered 410 Gone (delivery ${deliveryId})`);
  return step;
}

/**
 * Why a message must not be POSTed, judged from the delivery's recorded automatic attempts: the
 * delivery ended with an attempt classed delivered or gone (a record without a class, by its status).
 */
export function alreadyHandled(attempt: number, recorded: readonly RecordedAttempt[]): string | undefined {
  if (recorded.some((r) => r.attempt >= attempt))
    return 'attempt already recorded (a duplicate or late message)';
  const skipped = recorded.find((r) => r.keySkipped);
  if (skipped) return `delivery skipped with its parked key (attempt ${skipped.attempt})`;
  const ended = recorded.find((r) => outcomeClassOf(r) !== 'failed');
  if (ended) return `delivery already ended (attempt ${ended.attempt} answered ${ended.statusCode})`;
  return undefined;
}
