/**
 * DynamoDB access for webhooks and their subscription items. A webhook and its subscription
 * items are written and deleted in one transaction, so fan-out never sees a subscription
 * whose webhook is half-created.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../store/clients';
import { batchGetAll, queryAll, scanAll } from '../../store/read';
import { tableName } from '../../store/tables';
import { isTransactionCancelled, transactWrite } from '../../store/write';
import type { WebhookItem } from '../model';
import { webhookSubscriptionKeys } from './subscriptions';

export async function putWebhook(item: WebhookItem): Promise<void> {
  const subscriptions = webhookSubscriptionKeys(item).map((subscriptionKey) => ({
    Put: {
      TableName: tableName('webhookSubscriptions'),
      Item: { subscriptionKey, webhookId: item.id, createdBy: item.createdBy, global: item.global },
    },
  }));
  await transactWrite([
    {
      Put: { TableName: tableName('webhooks'), Item: item, ConditionExpression: 'attribute_not_exists(id)' },
    },
    ...subscriptions,
  ]);
}

export async function getWebhookItem(id: number): Promise<WebhookItem | undefined> {
  const out = await documentClient.send(new GetCommand({ TableName: tableName('webhooks'), Key: { id } }));
  return out.Item as WebhookItem | undefined;
}

export async function getWebhookItems(ids: readonly number[]): Promise<Map<number, WebhookItem>> {
  const items = await batchGetAll<WebhookItem>(
    tableName('webhooks'),
    ids.map((id) => ({ id })),
  );
  return new Map(items.map((item) => [item.id, item]));
}

export function listWebhooksByOwner(ownerId: number): Promise<WebhookItem[]> {
  return queryAll<WebhookItem>({
    TableName: tableName('webhooks'),
    IndexName: 'byOwner',
    KeyConditionExpression: 'createdBy = :owner',
    ExpressionAttributeValues: { ':owner': ownerId },
  });
}

/** Every webhook (admins' listing). */
export async function listAllWebhooks(): Promise<WebhookItem[]> {
  const items = await scanAll<WebhookItem>({ TableName: tableName('webhooks') });
  return items.sort((a, b) => a.id - b.id);
}

/** Deletes the webhook and its subscriptions; false when it was already gone. */
export async function deleteWebhookItem(item: WebhookItem): Promise<boolean> {
  try {
    await transactWrite([
      {
        Delete: {
          TableName: tableName('webhooks'),
          Key: { id: item.id },
          ConditionExpression: 'attribute_exists(id)',
        },
      },
      ...webhookSubscriptionKeys(item).map((subscriptionKey) => ({
        Delete: {
          TableName: tableName('webhookSubscriptions'),
          Key: { subscriptionKey, webhookId: item.id },
        },
      })),
    ]);
    return true;
  } catch (error) {
    if (isTransactionCancelled(error)) return false;
    throw error;
  }
}

/** Webhook ids subscribed under any of `keys` (one paginated query per key, run concurrently). */
export async function subscribedWebhookIds(keys: readonly string[], concurrency = 8): Promise<number[]> {
  const ids = new Set<number>();
  const queue = [...keys];
  const worker = async () => {
    for (let key = queue.shift(); key !== undefined; key = queue.shift()) {
      const items = await queryAll<{ webhookId: number }>({
        TableName: tableName('webhookSubscriptions'),
        KeyConditionExpression: 'subscriptionKey = :k',
        ExpressionAttributeValues: { ':k': key },
        ProjectionExpression: 'webhookId',
      });
      for (const item of items) ids.add(item.webhookId);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, keys.length) }, worker));
  return [...ids].sort((a, b) => a - b);
}
