/**
 * Delivering one (notification, webhook) pair: sign, POST, record the attempt, then either
 * finish, schedule the next attempt by message visibility, or dead-letter the delivery.
 */
import { createHash } from 'node:crypto';
import type { SQSRecord } from 'aws-lambda';
import * as z from 'zod';
import { NotFoundError } from '../errors';
import { NOTIFICATION_NAMES } from '../notifications/catalogue';
import { NotificationMetadataSchema } from '../notifications/message';
import { logger } from '../observability/logger';
import { describeIssues } from '../validation';
import { retrySchedule } from './config';
import { claim } from './dedup';
import { getHistoryRecord, historyView, type StoredHistoryRecord, writeHistoryRecord } from './history';
import { type AttemptOutcome, postWebhook } from './http';
import type { DeliveryPayload, HistoryRecord, WebhookItem } from './model';
import { delayRetry, sendToDeadLetter } from './queue';
import { nextStep } from './retry';
import { webhookSecrets } from './service';
import { webhookHeaders } from './signing';
import { getWebhookItem } from './store';

/** The message on the deliveries queue: one per (notification, webhook). */
export const DeliveryMessageSchema = z.strictObject({
  v: z.literal(1),
  deliveryId: z.string().regex(/^msg_[0-9a-f]{32}_\d+$/),
  webhookId: z.number().int().positive(),
  activityId: z.number().int().nonnegative(),
  notificationType: z.enum(NOTIFICATION_NAMES),
  text: z.string(),
  metadata: NotificationMetadataSchema,
});
export type DeliveryMessage = z.infer<typeof DeliveryMessageSchema>;

/** A digest of the notification's identity (producer id, else the SQS message id). */
export function notificationDigest(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** Deterministic: the same notification and webhook always give the same delivery id. */
export function deliveryIdFor(digest: string, webhookId: number): string {
  return `msg_${digest.slice(0, 32)}_${webhookId}`;
}

/** The integer `webhooksActivityId` of a notification: 48 bits of its digest. */
export function activityIdFor(digest: string): number {
  return Number.parseInt(digest.slice(0, 12), 16);
}

export class RetryScheduledError extends Error {
  override name = 'RetryScheduledError';
}

/** Days an attempt claim is kept: longer than a delivery can live on its queue (14 days). */
const CLAIM_TTL_DAYS = 15;

async function post(
  webhook: WebhookItem,
  deliveryId: string,
  payload: DeliveryPayload,
): Promise<AttemptOutcome> {
  const body = JSON.stringify(payload);
  const secret = webhook.secret ? await webhookSecrets.decrypt(webhook.secret) : undefined;
  return postWebhook(webhook.url, body, webhookHeaders(deliveryId, body, secret));
}

async function record(
  webhook: WebhookItem,
  fields: {
    deliveryId: string;
    attempt: number;
    activityId: number;
    notificationType: string;
    payload: DeliveryPayload;
    retryOf?: number;
  },
  outcome: AttemptOutcome,
): Promise<StoredHistoryRecord> {
  return writeHistoryRecord({
    request: fields.payload,
    response: outcome.response,
    statusCode: outcome.statusCode,
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
  });
}

/** Handles one message of the deliveries queue; throws RetryScheduledError to keep it for a retry. */
export async function processDelivery(sqsRecord: SQSRecord): Promise<void> {
  let json: unknown;
  try {
    json = JSON.parse(sqsRecord.body);
  } catch {
    json = undefined;
  }
  const parsed = DeliveryMessageSchema.safeParse(json);
  if (!parsed.success) {
    const reason = json === undefined ? 'body is not JSON' : describeIssues(parsed.error.issues);
    await sendToDeadLetter('deliveries', sqsRecord.body, `malformed delivery message: ${reason}`);
    logger.warn('malformed delivery message dead-lettered', { messageId: sqsRecord.messageId });
    return;
  }
  const message = parsed.data;
  const attempt = Math.max(1, Number(sqsRecord.attributes.ApproximateReceiveCount) || 1);
  const [claimed, webhook] = await Promise.all([
    claim(`attempt#${message.deliveryId}#${attempt}`, CLAIM_TTL_DAYS),
    getWebhookItem(message.webhookId),
  ]);
  if (!claimed) {
    logger.info('duplicate delivery message dropped', { deliveryId: message.deliveryId, attempt });
    return;
  }
  if (!webhook) {
    logger.info('webhook deleted; delivery dropped', { deliveryId: message.deliveryId });
    return;
  }
  const payload: DeliveryPayload = {
    text: message.text,
    metadata: message.metadata,
    webhookId: webhook.id,
    webhookName: webhook.name,
  };
  const outcome = await post(webhook, message.deliveryId, payload);
  await record(
    webhook,
    {
      deliveryId: message.deliveryId,
      attempt,
      activityId: message.activityId,
      notificationType: message.notificationType,
      payload,
    },
    outcome,
  );
  const schedule = retrySchedule();
  const step = nextStep(attempt, outcome, schedule);
  logger.info('delivery attempt', {
    deliveryId: message.deliveryId,
    webhookId: webhook.id,
    attempt,
    statusCode: outcome.statusCode,
    durationMs: outcome.durationMs,
    next: step.kind,
  });
  switch (step.kind) {
    case 'delivered':
    case 'gone':
      return;
    case 'retry':
      await delayRetry('deliveries', sqsRecord.receiptHandle, step.delaySeconds);
      throw new RetryScheduledError(`attempt ${attempt} failed; retry in ${step.delaySeconds} s`);
    case 'exhausted':
      await sendToDeadLetter(
        'deliveries',
        sqsRecord.body,
        `retry schedule exhausted after ${attempt} attempts; last status ${outcome.statusCode}`,
      );
      return;
  }
}

/**
 * Re-sends a stored record's request to its webhook now (same `webhook-id`) and records the
 * attempt as a new history record. Runs in the webhook sender function; the API route has
 * already checked that the caller may see the record (`shared/webhooks/retry-request.ts`).
 */
export async function resendHistoryRecord(id: number): Promise<HistoryRecord> {
  const original = await getHistoryRecord(id);
  if (!original) throw new NotFoundError(`history record ${id} not found`);
  const webhook = await getWebhookItem(original.webhooksId);
  if (!webhook)
    throw new NotFoundError(`webhook ${original.webhooksId} of history record ${id} no longer exists`);
  const payload = original.request;
  const outcome = await post(webhook, original.deliveryId, payload);
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
  );
  return historyView(created);
}
