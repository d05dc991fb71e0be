/**
 * An example of each notification as a receiver gets it: the delivery body
 * (`{text, metadata, webhookId, webhookName}`, `metadata.notificationType` filled in as the
 * delivery consumer does) with example values. Built from the catalog alone, so the console's
 * event catalog shows every name it holds and nothing else. Pure: no I/O, no Node modules (the
 * console bundles it).
 *
 * The specification leaves payload contents per type "not shown" (docs/webhooks.md): producers
 * send the spec's metadata fields that apply. The example fills the fields a type's name is
 * about (data source, project, group), the actor and the user it pertains to; the service's own
 * notifications carry the fields their producers set.
 */
import { type NotificationName, notificationCatalog } from './catalog';

export interface ExamplePayload {
  text: string;
  metadata: Record<string, unknown>;
  webhookId: number;
  webhookName: string;
}

const EXAMPLE_WEBHOOK = { id: 17, name: 'my receiver' };
const AT = '2026-03-10T09:30:00.000Z';

/** The metadata the service's own notifications carry (shared/webhooks/pipeline). */
const OPERATIONAL: Partial<Record<NotificationName, Record<string, unknown>>> = {
  webhookFailing: {
    failingSince: AT,
    disableAt: '2026-03-15T09:30:00.000Z',
  },
  webhookAutoDisabled: {
    disabledAt: '2026-03-15T09:31:02.000Z',
    disabledReason: 'every attempt failed since 2026-03-10T09:30:00.000Z',
  },
  webhookKeyParked: {
    orderingKey: 'dataSource:42',
    headDeliveryId: 'msg_5f2b8c1d9e0a4f6b7c3d2e1f0a9b8c7d_17',
    attempts: 8,
    lastError: 'HTTP 503',
  },
};

function specMetadata(name: NotificationName): Record<string, unknown> {
  const lower = name.toLowerCase();
  return {
    actionBy: 1001,
    actionByName: 'Ada Admin',
    targetUser: 1002,
    targetUserName: 'Grace User',
    ...(/model|datasource/.test(lower) || /^(query|task|firstquery)/.test(lower)
      ? { modelId: 42, modelType: 'datasource' }
      : {}),
    ...(lower.includes('project') ? { projectName: 'Quarterly revenue' } : {}),
    ...(lower.includes('group') || lower.includes('attribute') ? { targetGroup: 7 } : {}),
  };
}

/** The body a webhook receives for `name` (example values), as the delivery consumer sends it. */
export function examplePayload(
  name: NotificationName,
  webhook: { id: number; name: string } = EXAMPLE_WEBHOOK,
): ExamplePayload {
  const entry = notificationCatalog[name] as { trigger: string; origin?: 'service' };
  const operational = OPERATIONAL[name];
  const trigger = entry.trigger.charAt(0).toUpperCase() + entry.trigger.slice(1);
  const metadata = operational
    ? {
        targetUser: 1002,
        webhookId: 23,
        webhookName: 'orders receiver',
        url: 'https://hooks.example.com/orders',
        ...operational,
        notificationType: name,
      }
    : { ...specMetadata(name), notificationType: name };
  return { text: `${trigger}.`, metadata, webhookId: webhook.id, webhookName: webhook.name };
}
