/**
 * Fan-out of one notification: validate it (malformed → the notifications DLQ with the
 * reason), find the subscribed webhooks with one key query per matching subscription key,
 * and enqueue one delivery message per (notification, webhook).
 */
import type { SQSRecord } from 'aws-lambda';
import { type NotificationMessage, NotificationMessageSchema, pertainsTo } from '../../notifications/message';
import { logger } from '../../observability/logger';
import { recordFanOut } from '../../observability/metrics';
import { claim, exists } from '../store/dedup';
import { notificationSubscriptionKeys } from '../store/subscriptions';
import { subscribedWebhookIds } from '../store/webhooks';
import { parseOrDeadLetter } from './consumer';
import { activityIdFor, type DeliveryMessage, deliveryIdFor, notificationDigest } from './message';
import { sendAll } from './queue';
import { notificationOrigin } from './telemetry';

/** Longer than a notification can live on its queue (4 days). */
const FAN_OUT_MARKER_TTL_DAYS = 5;

export function deliveryMessages(
  message: NotificationMessage,
  digest: string,
  webhookIds: readonly number[],
  origin: Pick<DeliveryMessage, 'traceparent' | 'notifiedAt'> = {},
): DeliveryMessage[] {
  const activityId = activityIdFor(digest);
  const metadata = {
    ...message.metadata,
    notificationType: message.metadata.notificationType ?? message.notificationType,
  };
  return webhookIds.map((webhookId) => ({
    v: 1,
    deliveryId: deliveryIdFor(digest, webhookId),
    webhookId,
    activityId,
    notificationType: message.notificationType,
    text: message.text,
    metadata,
    ...origin,
  }));
}

export async function processNotification(record: SQSRecord): Promise<{ deliveries: number }> {
  const message = await parseOrDeadLetter('notifications', record, NotificationMessageSchema, 'notification');
  if (!message) return { deliveries: 0 };
  const digest = notificationDigest(message.id !== undefined ? `p:${message.id}` : `m:${record.messageId}`);
  const marker = `fanout#${digest}`;
  const keys = notificationSubscriptionKeys(message.notificationType, pertainsTo(message));
  // The marker check and the subscription queries run together: one round trip less per notification.
  const [alreadyDone, webhookIds] = await Promise.all([exists(marker), subscribedWebhookIds(keys)]);
  if (alreadyDone) {
    logger.info('notification already fanned out', { messageId: record.messageId });
    return { deliveries: 0 };
  }
  const deliveries = deliveryMessages(message, digest, webhookIds, notificationOrigin(record));
  await sendAll(
    'deliveries',
    deliveries.map((d) => JSON.stringify(d)),
  );
  // Written last: a crash before this line fans out again, and the delivery consumer's
  // attempt claims drop the duplicate messages.
  await claim(marker, FAN_OUT_MARKER_TTL_DAYS);
  recordFanOut(deliveries.length);
  logger.info('notification fanned out', {
    messageId: record.messageId,
    notificationType: message.notificationType,
    deliveries: deliveries.length,
  });
  return { deliveries: deliveries.length };
}
