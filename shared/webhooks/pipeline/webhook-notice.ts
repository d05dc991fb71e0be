/**
 * The service's operational notifications about a webhook (`webhookFailing`,
 * `webhookAutoDisabled`, `webhookKeyParked`) go through the normal pipeline to the webhook's
 * owner (their personal webhooks subscribed to the type) and every global webhook subscribed to
 * it, with the webhook named in the metadata. The publisher is loaded on first use: it builds the
 * notification message schemas, which the delivery consumers need only on these rare paths
 * (docs/benchmarks.md, figure 5).
 */
import type { NotificationName } from '../../notifications/catalog';
import type { WebhookItem } from '../model';
import { targetLabel } from '../target';

export async function publishWebhookNotice(
  webhook: WebhookItem,
  notice: {
    /** The producer id: one notification per event, however often this runs for it. */
    id: string;
    notificationType: NotificationName;
    text: string;
    /** The type's own metadata, after the webhook's. */
    metadata: Record<string, unknown>;
  },
): Promise<void> {
  const { publishNotification } = await import('../../notifications/publisher');
  await publishNotification({
    id: notice.id,
    notificationType: notice.notificationType,
    text: notice.text,
    recipients: [webhook.createdBy],
    metadata: {
      targetUser: webhook.createdBy,
      webhookId: webhook.id,
      webhookName: webhook.name,
      url: targetLabel(webhook),
      ...notice.metadata,
    },
  });
}
