/**
 * `POST /webhooks/{id}/test`: sends a signed example notification to the webhook now (whatever
 * its status, so an endpoint can be checked before it is enabled), records it in the history
 * marked `test: true` and answers with that record. The type is one the webhook subscribes to:
 * the caller's choice, or the first it names (for a wildcard subscription, the first name of the
 * catalog). Test sends POST to a receiver, so they count against the caller's manual send
 * limit with manual retries. The sender function makes the POST (./retry.ts says why).
 */
import type { Principal } from '../../auth/permissions';
import { InvalidInputError, NotFoundError } from '../../errors';
import { ALL_NOTIFICATIONS, NOTIFICATION_NAMES, type NotificationName } from '../../notifications/catalog';
import { invokeInternal } from '../../store/internal-functions';
import type { HistoryRecord } from '../history-model';
import type { WebhookItem } from '../model';
import { countManualSend, type ResendResult, type SenderRequest } from './retry';
import { findVisibleWebhook } from './webhooks';

/** The type a test send of this webhook carries (a 400 naming the field when it does not subscribe to `wanted`). */
function testType(
  webhook: Pick<WebhookItem, 'notificationType'>,
  wanted?: NotificationName,
): NotificationName {
  const wildcard = webhook.notificationType.includes(ALL_NOTIFICATIONS);
  if (wanted !== undefined) {
    if (wildcard || webhook.notificationType.includes(wanted)) return wanted;
    throw new InvalidInputError(`body.notificationType: the webhook does not subscribe to ${wanted}`);
  }
  const named = webhook.notificationType.find((n): n is NotificationName => n !== ALL_NOTIFICATIONS);
  return named ?? NOTIFICATION_NAMES[0];
}

export async function requestTestSend(
  caller: Principal,
  id: number,
  wanted: NotificationName | undefined,
): Promise<HistoryRecord> {
  // Counted first, as retries are: probing ids is limited too.
  await countManualSend(caller, 'test send');
  const webhook = await findVisibleWebhook(caller, id);
  const notificationType = testType(webhook, wanted);
  const result = await invokeInternal<ResendResult>('webhookSender', {
    testWebhookId: id,
    notificationType,
    caller: { userId: caller.userId, name: caller.name },
  } satisfies SenderRequest);
  if (!result.ok) throw new NotFoundError(result.notFound);
  return result.record;
}
