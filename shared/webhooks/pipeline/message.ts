/**
 * The message on the deliveries queue (one per notification and webhook) and the ids derived
 * from a notification: fan-out writes it, the delivery consumer reads it.
 */
import { createHash } from 'node:crypto';
import * as z from 'zod/mini';
import { NOTIFICATION_NAMES } from '../../notifications/catalog';
import { NotificationMetadataSchema } from '../../notifications/metadata';
import { orderingKeySchema } from '../../notifications/ordering-key';
import { DELIVERY_ID } from '../delivery-id';
import type { HistoryKey } from '../store/history-keys';

const DeliveryMessageSchema = z.strictObject({
  v: z.literal(1),
  deliveryId: z.string().check(z.regex(DELIVERY_ID)),
  webhookId: z.int().check(z.positive()),
  activityId: z.int().check(z.nonnegative()),
  notificationType: z.enum(NOTIFICATION_NAMES),
  text: z.string(),
  metadata: NotificationMetadataSchema,
  /** W3C trace context of the notification (fan-out); each attempt's `traceparent` is a child of it. */
  traceparent: z.optional(z.string().check(z.maxLength(55))),
  /** When the notification entered its queue (epoch ms), for the time-to-first-attempt metric. */
  notifiedAt: z.optional(z.int().check(z.nonnegative())),
  /**
   * Attempts made before this message was first received: a throttled delivery is sent again
   * as a new message (whose receive count starts over), carrying the attempts it had made.
   */
  attemptBase: z.optional(z.int().check(z.nonnegative(), z.lte(100))),
  /** The throttle slot (epoch ms) this message reserved for attempt `attempt`. */
  slot: z.optional(
    z.strictObject({ attempt: z.int().check(z.positive()), at: z.number().check(z.nonnegative()) }),
  ),
  /** An ordered webhook's delivery of a keyed notification: the notification's key (ADR 0020). */
  orderingKey: z.optional(orderingKeySchema()),
});
export type DeliveryMessage = z.infer<typeof DeliveryMessageSchema>;

/**
 * A recover job's re-send of one delivery, on the deliveries queue beside the automatic ones:
 * the record to send again (its request goes to the webhook's current URL, signed with its
 * current secrets, under the original `webhook-id`), once.
 */
const ResendMessageSchema = z.strictObject({
  v: z.literal(1),
  webhookId: z.int().check(z.positive()),
  resend: z.strictObject({
    jobId: z.string().check(z.maxLength(100)),
    deliveryId: z.string().check(z.regex(DELIVERY_ID)),
    seq: z.int().check(z.positive()),
  }),
  slot: z.optional(
    z.strictObject({ attempt: z.int().check(z.positive()), at: z.number().check(z.nonnegative()) }),
  ),
});
export type ResendMessage = z.infer<typeof ResendMessageSchema>;

/**
 * A resume or skip of an ordered webhook's parked or held key (ADR 0020), sent into the key's own
 * group of the ordered deliveries queue: everything of the key that arrives later queues behind
 * it, and its consumer sends the key's waiting deliveries in order.
 */
const DrainMessageSchema = z.strictObject({
  v: z.literal(1),
  drain: z.strictObject({
    webhookId: z.int().check(z.positive()),
    orderingKey: orderingKeySchema(),
  }),
});
export type DrainMessage = z.infer<typeof DrainMessageSchema>;

export const QueuedDeliverySchema = z.union([DeliveryMessageSchema, ResendMessageSchema, DrainMessageSchema]);
export type QueuedDelivery = z.infer<typeof QueuedDeliverySchema>;

/** Attempts a delivery made before its message was sent (a throttled one sent again carries them). */
export const attemptsBefore = (queued: QueuedDelivery): number =>
  'attemptBase' in queued ? (queued.attemptBase ?? 0) : 0;

/*
 * The message names the record's key `seq`, the history table's attribute (store/history-keys.ts):
 * messages already on the queue keep parsing. In code it is a HistoryKey's `attemptOrId`.
 */
export function resendMessage(webhookId: number, jobId: string, record: HistoryKey): ResendMessage {
  return { v: 1, webhookId, resend: { jobId, deliveryId: record.deliveryId, seq: record.attemptOrId } };
}

/** The key of the record a re-send message sends again. */
export const resendKey = ({ resend }: ResendMessage): HistoryKey => ({
  deliveryId: resend.deliveryId,
  attemptOrId: resend.seq,
});

/** A digest of the notification's identity (producer id, else the SQS message id). */
export function notificationDigest(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** Deterministic: the same notification and webhook always give the same delivery id. */
export function deliveryIdFor(digest: string, webhookId: number): string {
  return `msg_${digest.slice(0, 32)}_${webhookId}`;
}

/**
 * The message group of an ordered webhook's deliveries of one key on the ordered deliveries
 * queue: the webhook id and a digest of the key (a key and an id together can exceed the 128
 * characters SQS allows a group id).
 */
export function orderedDeliveryGroup(webhookId: number, orderingKey: string): string {
  return `${webhookId}#${createHash('sha256').update(orderingKey).digest('hex')}`;
}

/** The integer `webhooksActivityId` of a notification: 48 bits of its digest. */
export function activityIdFor(digest: string): number {
  return Number.parseInt(digest.slice(0, 12), 16);
}
