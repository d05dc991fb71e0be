/**
 * Subscription keys. Each webhook is written once per subscribed name under
 * `<name>#global` (global webhooks) or `<name>#user#<ownerId>` (personal webhooks), so
 * fan-out reads exactly the subscriptions that match a notification: for its type and for
 * `ALL_NOTIFICATIONS`, the global key plus one key per user the notification pertains to.
 * Nothing else is ever read — no scan, no filter over unrelated webhooks.
 */
import { ALL_NOTIFICATIONS, type NotificationName } from '../../notifications/catalog';

function subscriptionKey(
  name: string,
  audience: { global: true } | { global: false; ownerId: number },
): string {
  return audience.global ? `${name}#global` : `${name}#user#${audience.ownerId}`;
}

/** The keys one webhook is stored under. */
export function webhookSubscriptionKeys(webhook: {
  global: boolean;
  createdBy: number;
  notificationType: readonly string[];
}): string[] {
  const audience = webhook.global
    ? ({ global: true } as const)
    : ({ global: false, ownerId: webhook.createdBy } as const);
  return [...new Set(webhook.notificationType)].map((name) => subscriptionKey(name, audience));
}

/** The keys fan-out queries for one notification. */
export function notificationSubscriptionKeys(type: NotificationName, users: readonly number[]): string[] {
  const keys: string[] = [];
  for (const name of [type, ALL_NOTIFICATIONS]) {
    keys.push(subscriptionKey(name, { global: true }));
    for (const ownerId of users) keys.push(subscriptionKey(name, { global: false, ownerId }));
  }
  return keys;
}

/** The key of the same audience as the `ALL_NOTIFICATIONS` key `allKey`, for the name `type`. */
export function sameAudienceKey(allKey: string, type: string): string {
  return `${type}${allKey.slice(ALL_NOTIFICATIONS.length)}`;
}
