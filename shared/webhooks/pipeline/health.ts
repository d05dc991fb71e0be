/**
 * A webhook's failure streak and auto-disable, after each automatic attempt. A success costs
 * nothing extra unless it ends a streak; a failure writes only when it starts one. The streak
 * start (`failingSince`) lives on the webhook item the consumer reads anyway. At half the stage's
 * period the owner is warned once (`webhookFailing`); at the period, with at least the stage's
 * number of failed attempts since the streak began (counted on the webhook's history index, only
 * then), the webhook is disabled (`webhookAutoDisabled`, ./auto-disable.ts). ADR 0007 says why.
 */
import { describeError, logger } from '../../observability/logger';
import { autoDisable as autoDisableSettings, healthTracking, historyWriteShards } from '../config';
import type { WebhookItem } from '../model';
import { firstIdAt, webhookPartitions } from '../store/history-keys';
import { countRange } from '../store/history-listing';
import { clearFailing, markFailing, markWarned } from '../store/webhooks';
import { autoDisable } from './auto-disable';
import { publishWebhookNotice } from './webhook-notice';

export async function trackOutcome(
  webhook: WebhookItem,
  delivered: boolean,
  now = Date.now(),
): Promise<void> {
  if (!healthTracking()) return;
  try {
    if (delivered) {
      if (webhook.failingSince !== undefined) await clearFailing(webhook.id);
      return;
    }
    if (webhook.failingSince === undefined) {
      await markFailing(webhook.id, new Date(now).toISOString());
      return;
    }
    const settings = autoDisableSettings();
    const since = Date.parse(webhook.failingSince);
    const period = settings.afterSeconds * 1000;
    const elapsed = now - since;
    if (elapsed >= period) {
      const failed = await countRange('webhook', webhookPartitions(webhook.id, historyWriteShards()), {
        minId: firstIdAt(since),
        outcome: 'f',
      });
      if (failed >= settings.minAttempts) {
        await autoDisable(
          webhook.id,
          'failing',
          `every attempt failed since ${webhook.failingSince} (${failed} attempts)`,
        );
      }
      return;
    }
    if (elapsed >= period / 2 && webhook.failWarnedAt === undefined) {
      const at = new Date(now).toISOString();
      if (!(await markWarned(webhook.id, webhook.failingSince, at))) return;
      const disableAt = new Date(since + period).toISOString();
      await publishWebhookNotice(webhook, {
        id: `webhook-failing:${webhook.id}:${webhook.failingSince}`,
        notificationType: 'webhookFailing',
        text: `Webhook ${webhook.id} (${webhook.name}) has failed since ${webhook.failingSince}; it will be disabled at ${disableAt} unless a delivery succeeds`,
        metadata: { failingSince: webhook.failingSince, disableAt },
      });
    }
  } catch (error) {
    // Health bookkeeping never fails a delivery: the next attempt's outcome tries again.
    logger.error('webhook health not updated', { webhookId: webhook.id, ...describeError(error) });
  }
}
