/**
 * The service disables a webhook (its target is gone, as a 410 answer says, or it fails
 * continuously) and announces it with the operational notification `webhookAutoDisabled` through
 * the normal pipeline: its owner's personal webhooks and every global webhook subscribed to the
 * type receive it. Apart from ../lifecycle.ts so that the API functions do not load the queue client.
 */
import { describeError, logger } from '../../observability/logger';
import { changeWebhook, disabling } from '../lifecycle';
import type { WebhookItem } from '../model';
import { publishWebhookNotice } from './webhook-notice';

/**
 * Disables the webhook for `cause` and tells its owner and the admins; only the call whose write made the change publishes. Errors of the announcement
 * are logged, never thrown: the delivery that found the reason must still finish.
 */
export async function autoDisable(
  id: number,
  cause: 'gone' | 'failing',
  reason: string,
): Promise<WebhookItem | undefined> {
  const result = await changeWebhook(id, disabling(cause, reason));
  if (!result?.changed) return undefined;
  const { after } = result;
  try {
    await publishWebhookNotice(after, {
      // One notification per disabling, however often this runs for it.
      id: `webhook-auto-disabled:${after.id}:${after.disabledAt}`,
      notificationType: 'webhookAutoDisabled',
      text: `Webhook ${after.id} (${after.name}) was disabled: ${reason}`,
      metadata: { disabledAt: after.disabledAt, disabledReason: reason },
    });
  } catch (error) {
    logger.error('webhookAutoDisabled notification not published', {
      webhookId: id,
      ...describeError(error),
    });
  }
  logger.warn('webhook disabled by the service', { webhookId: id, cause, reason });
  return after;
}
