/**
 * Parked ordering keys without waiting out a retry schedule (ADR 0020): each key's head is put in
 * the store as the ordered deliveries consumer parks it (shared/webhooks/store/ordered-keys.ts),
 * so a test can list, resume and skip it at once; and the ordered webhook they belong to.
 */
import { expect } from 'vitest';
import { call, useLocalCloudEnv } from './api';

/** The head of key `orderingKey` of webhook `webhookId`: `webhook-id` `msg_<n×32>_<id>`, text `<label> <n>`. */
export const parkedHead = (webhookId: number, n: number, orderingKey: string, label: string) => ({
  v: 1 as const,
  deliveryId: `msg_${String(n).repeat(32)}_${webhookId}`,
  webhookId,
  activityId: n,
  notificationType: 'queryCreated' as const,
  text: `${label} ${n}`,
  metadata: { notificationType: 'queryCreated' },
  orderingKey,
});

/**
 * Parks each key (number, key) of the webhook after 4 attempts, its last error `HTTP 500`; or,
 * `held`, holds it as a disabled ordered webhook's key is held (no attempt made).
 */
export async function parkKeys(
  webhookId: number,
  keys: readonly (readonly [number, string])[],
  label: string,
  state: 'parked' | 'held' = 'parked',
): Promise<void> {
  useLocalCloudEnv();
  const { parkFlowingKey } = await import('../../shared/webhooks/store/ordered-keys');
  for (const [n, key] of keys) {
    const parked = await parkFlowingKey(
      parkedHead(webhookId, n, key, label),
      state,
      state === 'parked' ? { headAttempts: 4, lastError: 'HTTP 500' } : { headAttempts: 0 },
    );
    expect(parked, `key ${key} ${state}`).toBe(true);
  }
}

/** Creates a personal ordered webhook of `apiKey`'s user for `queryCreated` at `url`; returns its id. */
export async function createOrderedWebhook(apiKey: string, name: string, url: string): Promise<number> {
  const created = await call('POST', '/webhooks', {
    key: apiKey,
    body: {
      webhooks: [
        {
          name,
          url,
          global: false,
          actionType: 'receive',
          notificationType: ['queryCreated'],
          ordered: true,
        },
      ],
    },
  });
  expect(created.status, created.text).toBe(201);
  return created.body.createdWebhooks[0].id as number;
}
