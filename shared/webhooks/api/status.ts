/**
 * `POST /webhooks/{id}/disable` and `POST /webhooks/{id}/enable`. Disabling deletes the
 * webhook's subscription items with the status change (fan-out stops at once, with no read of
 * its own); attempts already queued are recorded as skipped when they come due, and a recover
 * sends them after the webhook is enabled again (docs/webhooks.md, ADR 0007). The owner or an
 * admin may disable and enable, except that a webhook disabled because its owner's last key was
 * revoked is enabled only by an admin. Enabling an ordered webhook also drains the keys held in the
 * store while it was disabled (ADR 0020), in order.
 */
import { isAdmin, type Principal } from '../../auth/permissions';
import { NotPermittedError } from '../../errors';
import { changeWebhook, disabling, enabling } from '../lifecycle';
import { type WebhookView, webhookView } from '../model';
import { resumeHeldKeys } from './ordering-keys';
import { assertVisible, webhookNotFound } from './webhooks';

export async function disableWebhook(
  caller: Principal,
  id: number,
  reason: string | undefined,
  serviceUrl: string,
): Promise<WebhookView> {
  const cause = isAdmin(caller) ? 'admin' : 'owner';
  const by = cause === 'admin' ? `disabled by an admin (user ${caller.userId})` : 'disabled by its owner';
  const change = disabling(cause, reason ? `${by}: ${reason}` : by);
  const result = await changeWebhook(id, (current) => {
    assertVisible(caller, current);
    return change(current);
  });
  if (!result) throw webhookNotFound(id);
  return webhookView(result.after, serviceUrl);
}

export async function enableWebhook(caller: Principal, id: number, serviceUrl: string): Promise<WebhookView> {
  const result = await changeWebhook(id, (current) => {
    assertVisible(caller, current);
    if (current.disabledCause === 'keysRevoked' && !isAdmin(caller)) {
      throw new NotPermittedError(
        `webhook ${id} was disabled when its owner's API keys were revoked; only an APPLICATION_ADMIN may enable it`,
      );
    }
    return enabling(current);
  });
  if (!result) throw webhookNotFound(id);
  // Every enable, not only one that changed the status: an enable that failed here is made good by the next.
  if (result.after.ordered === true) await resumeHeldKeys(id);
  return webhookView(result.after, serviceUrl);
}
