/**
 * The notification message producers put on the notifications queue. The JSON Schema in
 * `docs/notification-message.schema.json` is generated from this zod schema (see
 * `json-schema.ts`); a unit test fails when the file is out of date.
 */
import * as z from 'zod/mini';
import { described, withMeta } from '../schema-meta';
import { NOTIFICATION_NAMES } from './catalog';
import { NotificationMetadataSchema, UserId } from './metadata';
import { notificationName } from './name-schema';
import { orderingKeySchema } from './ordering-key';

const MAX_RECIPIENTS = 1000;
const MAX_TEXT_LENGTH = 8000;

export const NotificationMessageSchema = withMeta(
  z.strictObject({
    id: described(
      z.optional(
        z
          .string()
          .check(
            z.minLength(1),
            z.maxLength(200),
            z.regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces'),
          ),
      ),
      'producer id for de-duplication: two messages with the same id are one notification (the SQS message id is used when absent)',
    ),
    notificationType: described(
      notificationName(NOTIFICATION_NAMES),
      'a name from GET /webhooks/actions (not the wildcard)',
    ),
    text: z.string().check(z.minLength(1), z.maxLength(MAX_TEXT_LENGTH)),
    metadata: z._default(NotificationMetadataSchema, {}),
    recipients: described(
      z.optional(z.array(UserId).check(z.maxLength(MAX_RECIPIENTS))),
      'user ids the notification pertains to; their personal webhooks receive it',
    ),
    timestamp: described(z.iso.datetime({ offset: true }), 'when the event happened (ISO 8601)'),
    orderingKey: described(
      z.optional(orderingKeySchema()),
      'notifications with the same key reach each ordered webhook one at a time, in the order the intake accepted them (docs/webhooks.md, ordered delivery). Use the entity the notification is about, such as a data source or user id (`dataSource:42`), never a constant: a key is delivered one notification at a time, and a failing key holds only itself. Without a key a notification is not ordered.',
    ),
  }),
  {
    id: 'NotificationMessage',
    title: 'Causeway notification message',
    description: 'A message on the notifications queue: one notification to fan out to subscribed webhooks.',
  },
);

export type NotificationMessage = z.output<typeof NotificationMessageSchema>;
export type NotificationMessageInput = z.input<typeof NotificationMessageSchema>;

/**
 * User ids a notification pertains to: its recipients, `metadata.targetUser`, and
 * `metadata.actionBy` when `metadata.notifyInitiator` is true.
 */
export function pertainsTo(message: NotificationMessage): number[] {
  const users = new Set<number>(message.recipients ?? []);
  const { targetUser, actionBy, notifyInitiator } = message.metadata;
  if (typeof targetUser === 'number') users.add(targetUser);
  if (notifyInitiator === true && typeof actionBy === 'number') users.add(actionBy);
  return [...users].sort((a, b) => a - b);
}
