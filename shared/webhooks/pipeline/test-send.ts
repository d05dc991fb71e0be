/**
 * A test send (the webhook sender's side of `POST /webhooks/{id}/test`): an example
 * notification of the chosen type, signed and POSTed now with a fresh delivery id, recorded in
 * the history with `test: true`. It is not retried and does not count towards the webhook's
 * health.
 */
import { randomBytes } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { NotFoundError } from '../../errors';
import type { NotificationName } from '../../notifications/catalog';
import type { DeliveryPayload, HistoryRecord } from '../history-model';
import { historyView } from '../store/history-keys';
import { getWebhookItem } from '../store/webhooks';
import { invocationEnd, post, record, writeDeadline } from './attempt';
import { activityIdFor, deliveryIdFor } from './message';
import { deliveryTraceparent } from './telemetry';

export async function sendTest(
  webhookId: number,
  notificationType: NotificationName,
  caller: { userId: number; name: string },
  context?: Context,
): Promise<HistoryRecord> {
  const webhook = await getWebhookItem(webhookId);
  if (!webhook) throw new NotFoundError(`webhook ${webhookId} not found`);
  const digest = randomBytes(32).toString('hex');
  const deliveryId = deliveryIdFor(digest, webhook.id);
  const payload: DeliveryPayload = {
    text: `Test notification from Causeway for webhook ${webhook.id} (${webhook.name})`,
    metadata: {
      notificationType,
      actionBy: caller.userId,
      actionByName: caller.name,
      targetUser: webhook.createdBy,
      test: true,
    },
    webhookId: webhook.id,
    webhookName: webhook.name,
  };
  const fields = {
    deliveryId,
    attempt: 1,
    activityId: activityIdFor(digest),
    notificationType,
    payload,
    test: true as const,
  };
  const outcome = await post(webhook, fields, deliveryTraceparent({}));
  const created = await record(webhook, fields, outcome, writeDeadline(invocationEnd(context)));
  if (!created || created === 'duplicate')
    throw new Error(`the test send to webhook ${webhookId} was made but could not be recorded`);
  return historyView(created);
}
