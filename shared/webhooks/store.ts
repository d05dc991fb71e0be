/**
 * DynamoDB access for webhooks and their subscription items. A webhook and its subscription
 * items are written and deleted in one transaction, so fan-out never sees a subscription
 * whose webhook is half-created.
 */
import {
  BatchGetCommand,
  type BatchGetCommandOutput,
  GetCommand,
  QueryCommand,
  ScanCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../store/clients';
import { tableName } from '../store/tables';
import type { WebhookItem } from './model';
import { webhookSubscriptionKeys } from './subscriptions';

export async function putWebhook(item: WebhookItem): Promise<void> {
  const subscriptions = webhookSubscriptionKeys(item).map((subscriptionKey) => ({
    Put: {
      TableName: tableName('webhookSubscriptions'),
      Item: { subscriptionKey, webhookId: item.id, createdBy: item.createdBy, global: item.global },
    },
  }));
  await documentClient.send(
    new TransactWriteCommand({
      TransactItems: [
        {
          Put: {
            TableName: tableName('webhooks'),
            Item: item,
            ConditionExpression: 'attribute_not_exists(id)',
          },
        },
        ...subscriptions,
      ],
    }),
  );
}

export async function getWebhookItem(id: number): Promise<WebhookItem | undefined> {
  const out = await documentClient.send(new GetCommand({ TableName: tableName('webhooks'), Key: { id } }));
  return out.Item as WebhookItem | undefined;
}

export async function getWebhookItems(ids: readonly number[]): Promise<Map<number, WebhookItem>> {
  const found = new Map<number, WebhookItem>();
  const table = tableName('webhooks');
  for (let i = 0; i < ids.length; i += 100) {
    let keys: Record<string, unknown>[] | undefined = ids.slice(i, i + 100).map((id) => ({ id }));
    for (let round = 0; keys && keys.length > 0 && round < 8; round++) {
      const out: BatchGetCommandOutput = await documentClient.send(
        new BatchGetCommand({ RequestItems: { [table]: { Keys: keys } } }),
      );
      for (const item of (out.Responses?.[table] ?? []) as WebhookItem[]) found.set(item.id, item);
      keys = out.UnprocessedKeys?.[table]?.Keys;
    }
  }
  return found;
}

export async function listWebhooksByOwner(ownerId: number): Promise<WebhookItem[]> {
  const items: WebhookItem[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await documentClient.send(
      new QueryCommand({
        TableName: tableName('webhooks'),
        IndexName: 'byOwner',
        KeyConditionExpression: 'createdBy = :owner',
        ExpressionAttributeValues: { ':owner': ownerId },
        ExclusiveStartKey: start,
      }),
    );
    items.push(...((out.Items ?? []) as WebhookItem[]));
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
}

/** Every webhook (admins' listing). */
export async function listAllWebhooks(): Promise<WebhookItem[]> {
  const items: WebhookItem[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await documentClient.send(
      new ScanCommand({ TableName: tableName('webhooks'), ExclusiveStartKey: start }),
    );
    items.push(...((out.Items ?? []) as WebhookItem[]));
    start = out.LastEvaluatedKey;
  } while (start);
  return items.sort((a, b) => a.id - b.id);
}

/** Deletes the webhook and its subscriptions; false when it was already gone. */
export async function deleteWebhookItem(item: WebhookItem): Promise<boolean> {
  try {
    await documentClient.send(
      new TransactWriteCommand({
        TransactItems: [
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
        ],
      }),
    );
    return true;
  } catch (error) {
    if ((error as Error).name === 'TransactionCanceledException') return false;
    throw error;
  }
}

/** Webhook ids subscribed under any of `keys` (one paginated query per key, run concurrently). */
export async function subscribedWebhookIds(keys: readonly string[], concurrency = 8): Promise<number[]> {
  const ids = new Set<number>();
  const queue = [...keys];
  const worker = async () => {
    for (let key = queue.shift(); key !== undefined; key = queue.shift()) {
      let start: Record<string, unknown> | undefined;
      do {
        const out = await documentClient.send(
          new QueryCommand({
            TableName: tableName('webhookSubscriptions'),
            KeyConditionExpression: 'subscriptionKey = :k',
            ExpressionAttributeValues: { ':k': key },
            ProjectionExpression: 'webhookId',
            ExclusiveStartKey: start,
          }),
        );
        for (const item of out.Items ?? []) ids.add(item.webhookId as number);
        start = out.LastEvaluatedKey;
      } while (start);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, keys.length) }, worker));
  return [...ids].sort((a, b) => a - b);
}
