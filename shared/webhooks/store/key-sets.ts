/**
 * The published key sets of `v1a` webhooks (ADR 0018): one item per key set, keyed by its
 * unguessable id, so `GET /webhook-keys/{keySetId}` reads it with one GetItem and nothing else.
 * The item is written in the same transaction as its webhook whenever the webhook's public keys
 * change, and deleted with it (./webhooks.ts); keys past their overlap window are left out when
 * the set is read, so the end of a window needs no write.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../store/clients';
import { tableName } from '../../store/tables';
import { type KeySetItem, keySetOf } from '../credentials';
import type { WebhookItem } from '../model';

/** The key set stored under `keySetId`, if any. */
export async function getKeySet(keySetId: string): Promise<KeySetItem | undefined> {
  const out = await documentClient.send(
    new GetCommand({ TableName: tableName('webhookKeySets'), Key: { keySetId } }),
  );
  return out.Item as KeySetItem | undefined;
}

/** The transaction item that stores a new webhook's key set (none without one). */
export function keySetCreate(item: WebhookItem) {
  const set = keySetOf(item);
  return set === undefined
    ? []
    : [
        {
          Put: {
            TableName: tableName('webhookKeySets'),
            Item: set,
            ConditionExpression: 'attribute_not_exists(keySetId)',
          },
        },
      ];
}

/** The transaction item that moves a webhook's key set from `before` to `after` (none when its keys stay). */
export function keySetChange(before: WebhookItem, after: WebhookItem) {
  const set = keySetOf(after);
  if (set === undefined || JSON.stringify(keySetOf(before)) === JSON.stringify(set)) return [];
  return [{ Put: { TableName: tableName('webhookKeySets'), Item: set } }];
}

/** The transaction item that deletes a webhook's key set (none without one). */
export function keySetDelete(item: WebhookItem) {
  return item.keySetId === undefined
    ? []
    : [{ Delete: { TableName: tableName('webhookKeySets'), Key: { keySetId: item.keySetId } } }];
}
