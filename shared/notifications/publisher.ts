/**
 * The producer side of notification intake: validates a notification against the published
 * schema and puts it on the notifications queue (a keyed one on the ordered intake). Other capabilities (and the `notify` CLI
 * command) publish through this module only.
 */
import { createHash, randomUUID } from 'node:crypto';
import { sendAll, sendInOrder } from '../store/queues';
import { describeIssues } from '../validation';
import {
  type NotificationMessage,
  type NotificationMessageInput,
  NotificationMessageSchema,
} from './message';

class InvalidNotificationError extends Error {
  override name = 'InvalidNotificationError';
}

export interface PublishedNotification {
  messageId: string;
  message: NotificationMessage;
}

/** Validates a notification (the timestamp defaults to now) and returns the message to send. */
export function buildNotification(
  input: Omit<NotificationMessageInput, 'timestamp'> & { timestamp?: string },
): NotificationMessage {
  const parsed = NotificationMessageSchema.safeParse({
    ...input,
    timestamp: input.timestamp ?? new Date().toISOString(),
  });
  if (!parsed.success)
    throw new InvalidNotificationError(`invalid notification: ${describeIssues(parsed.error.issues)}`);
  return parsed.data;
}

export async function publishNotification(
  input: Omit<NotificationMessageInput, 'timestamp'> & { timestamp?: string },
): Promise<PublishedNotification> {
  const [published] = await publishNotifications([input]);
  if (!published) throw new Error('SQS returned no message id');
  return published;
}

/**
 * The intake queue's deduplication id of a keyed notification: a digest of the producer's id (up
 * to 200 characters; SQS takes 128), so a producer's retry is one notification; without an id,
 * a random one (each publish is a notification of its own, as on the standard queue).
 */
function deduplicationId(message: NotificationMessage): string {
  return message.id === undefined
    ? randomUUID()
    : createHash('sha256').update(`p:${message.id}`).digest('hex');
}

/**
 * Publishes many notifications (validated first, all or none); throws if any could not be sent.
 * Notifications with an `orderingKey` go to the FIFO intake with the key as message group, in
 * the order given (ADR 0020); the others to the notifications queue.
 */
export async function publishNotifications(
  inputs: readonly (Omit<NotificationMessageInput, 'timestamp'> & { timestamp?: string })[],
): Promise<PublishedNotification[]> {
  const messages = inputs.map(buildNotification);
  const plain = messages.filter((m) => m.orderingKey === undefined);
  const keyed = messages.filter((m) => m.orderingKey !== undefined);
  const [plainIds, keyedIds] = await Promise.all([
    plain.length > 0
      ? sendAll(
          'notifications',
          plain.map((m) => JSON.stringify(m)),
        )
      : [],
    keyed.length > 0
      ? sendInOrder(
          'notificationsOrdered',
          keyed.map((m) => ({
            body: JSON.stringify(m),
            groupId: m.orderingKey as string,
            deduplicationId: deduplicationId(m),
          })),
        )
      : [],
  ]);
  const idOf = new Map<NotificationMessage, string | undefined>([
    ...plain.map((m, i) => [m, plainIds[i]] as const),
    ...keyed.map((m, i) => [m, keyedIds[i]] as const),
  ]);
  return messages.map((message) => {
    const messageId = idOf.get(message);
    if (!messageId) throw new Error('SQS returned no message id');
    return { messageId, message };
  });
}
