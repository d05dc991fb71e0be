/**
 * The producer side of notification intake: validates a notification against the published
 * schema and puts it on the notifications queue. Other capabilities (and the `notify` CLI
 * command) publish through this module only.
 */
import { SendMessageBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { queueEnvVar } from '../catalog/queues';
import { requireEnv } from '../config/env';
import { describeIssues } from '../validation';
import {
  type NotificationMessage,
  type NotificationMessageInput,
  NotificationMessageSchema,
} from './message';

// Queue URLs come from the catalogue env; the client's own endpoint is authoritative.
const sqs = new SQSClient({ useQueueUrlAsEndpoint: false });

export class InvalidNotificationError extends Error {
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
  const message = buildNotification(input);
  const out = await sqs.send(
    new SendMessageCommand({
      QueueUrl: requireEnv(queueEnvVar('notifications')),
      MessageBody: JSON.stringify(message),
    }),
  );
  if (!out.MessageId) throw new Error('SQS returned no message id');
  return { messageId: out.MessageId, message };
}

/** Publishes many notifications, ten per SQS call; throws if any could not be sent. */
export async function publishNotifications(
  inputs: readonly (Omit<NotificationMessageInput, 'timestamp'> & { timestamp?: string })[],
): Promise<PublishedNotification[]> {
  const messages = inputs.map(buildNotification);
  const published: PublishedNotification[] = [];
  for (let i = 0; i < messages.length; i += 10) {
    const chunk = messages.slice(i, i + 10);
    const out = await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: requireEnv(queueEnvVar('notifications')),
        Entries: chunk.map((m, j) => ({ Id: String(j), MessageBody: JSON.stringify(m) })),
      }),
    );
    if (out.Failed && out.Failed.length > 0) {
      throw new Error(
        `SQS refused ${out.Failed.length} notification(s): ${out.Failed[0]?.Code ?? 'unknown'}`,
      );
    }
    for (const ok of out.Successful ?? []) {
      const message = chunk[Number(ok.Id)];
      if (message && ok.MessageId) published.push({ messageId: ok.MessageId, message });
    }
  }
  return published;
}
