/**
 * The producer side of notification intake: validates a notification against the published
 * schema and puts it on the notifications queue. Other capabilities (and the `notify` CLI
 * command) publish through this module only.
 */
import { sendAll } from '../store/queues';
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

/** Publishes many notifications (validated first, all or none); throws if any could not be sent. */
export async function publishNotifications(
  inputs: readonly (Omit<NotificationMessageInput, 'timestamp'> & { timestamp?: string })[],
): Promise<PublishedNotification[]> {
  const messages = inputs.map(buildNotification);
  const ids = await sendAll(
    'notifications',
    messages.map((m) => JSON.stringify(m)),
  );
  return messages.map((message, i) => {
    const messageId = ids[i];
    if (!messageId) throw new Error('SQS returned no message id');
    return { messageId, message };
  });
}
