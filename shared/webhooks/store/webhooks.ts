/**
 * DynamoDB access for webhooks and their subscription items. A webhook and its subscription
 * items are written, changed and deleted in one transaction, so fan-out never sees a
 * subscription whose webhook is half-created or half-updated. Only an enabled webhook has
 * subscription items: disabling one deletes them (fan-out skips it at index-query time, with no
 * read of its own), enabling it writes them back. Every change and delete is conditional on the
 * `version` the caller read, so concurrent changes apply in some serial order (the loser reads
 * again and retries, see ../lifecycle.ts).
 *
 * The same transactions keep two counters per owner in the counters table — how many webhooks
 * the owner has, and how many with each URL — and a create's conditions on them enforce the
 * quota and the same-URL limit atomically, however many requests race (./owner-counters.ts).
 */
import { GetCommand, QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../store/clients';
import { getPooled } from '../../store/pooled-reads';
import { batchGetAll, queryAll, scanAll } from '../../store/read';
import { tableName } from '../../store/tables';
import {
  cancellationCodes,
  conditionalUpdate,
  isTransactionCancelled,
  transactWrite,
} from '../../store/write';
import type { WebhookItem } from '../model';
import { statusOf } from '../status';
import { targetKey } from '../target';
import { keySetChange, keySetCreate, keySetDelete } from './key-sets';
import { counterUpdate, ensureOwnerCounters, ownerCounter, urlCounter } from './owner-counters';
import { webhookSubscriptionKeys } from './subscriptions';

export interface WebhookLimit {
  /** Webhooks the owner may have in all. */
  total: number;
  /** Webhooks of the owner with the same URL. */
  sameUrl: number;
}

/** Stores the webhook unless a limit is reached: `created`, or which limit refused it. */
export async function putWebhook(
  item: WebhookItem,
  limit: WebhookLimit,
): Promise<'created' | 'quota' | 'sameUrl'> {
  await ensureOwnerCounters(item, listWebhooksByOwner);
  const subscriptions = activeSubscriptionKeys(item).map((key) => subscriptionPut(item, key));
  const items = [
    counterUpdate(ownerCounter(item.createdBy), 1, limit.total),
    counterUpdate(urlCounter(item), 1, limit.sameUrl),
    {
      Put: { TableName: tableName('webhooks'), Item: item, ConditionExpression: 'attribute_not_exists(id)' },
    },
    ...subscriptions,
    // Last: the cancellation reasons above are read by position.
    ...keySetCreate(item),
  ];
  try {
    await transactWrite(items);
    return 'created';
  } catch (error) {
    if (!isTransactionCancelled(error)) throw error;
    const [quota, sameUrl] = cancellationCodes(error);
    if (quota === 'ConditionalCheckFailed') return 'quota';
    if (sameUrl === 'ConditionalCheckFailed') return 'sameUrl';
    throw error;
  }
}

/** The webhook; `consistent` for a read that a conditional write will follow. */
export async function getWebhookItem(id: number, consistent = false): Promise<WebhookItem | undefined> {
  // In a queue consumer's batch, with the other records' webhooks in one BatchGetItem (../../store/pooled-reads.ts).
  if (!consistent) return getPooled<WebhookItem>(tableName('webhooks'), { id });
  const out = await documentClient.send(
    new GetCommand({ TableName: tableName('webhooks'), Key: { id }, ConsistentRead: true }),
  );
  return out.Item as WebhookItem | undefined;
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

export interface WebhookPage {
  items: WebhookItem[];
  /** Where the next page starts (a store key), absent on the last page. */
  next?: Record<string, unknown>;
}

/**
 * One page of webhooks: the owner's (in id order) or, without an owner, every webhook (in
 * storage order). `start` is a `next` this function returned.
 */
export async function pageWebhooks(
  owner: number | undefined,
  size: number,
  start: Record<string, unknown> | undefined,
): Promise<WebhookPage> {
  const out =
    owner === undefined
      ? await documentClient.send(
          new ScanCommand({ TableName: tableName('webhooks'), Limit: size, ExclusiveStartKey: start }),
        )
      : await documentClient.send(
          new QueryCommand({
            TableName: tableName('webhooks'),
            IndexName: 'byOwner',
            KeyConditionExpression: 'createdBy = :owner',
            ExpressionAttributeValues: { ':owner': owner },
            Limit: size,
            ExclusiveStartKey: start,
          }),
        );
  return {
    items: (out.Items ?? []) as WebhookItem[],
    ...(out.LastEvaluatedKey ? { next: out.LastEvaluatedKey } : {}),
  };
}

/**
 * Replaces a webhook's sealed secret (`secret`, or `previousSecret` during a rotation's overlap)
 * if it is still `before`, and moves the webhook's version on, so a change that read the old value
 * reads again instead of writing it back; false when it changed or is gone.
 */
export function replaceWebhookSecret(
  id: number,
  field: 'secret' | 'previousSecret',
  before: string,
  after: string,
): Promise<boolean> {
  return conditionalUpdate({
    TableName: tableName('webhooks'),
    Key: { id },
    UpdateExpression: 'SET #secret = :after ADD version :one',
    ConditionExpression: '#secret = :before',
    ExpressionAttributeNames: { '#secret': field },
    ExpressionAttributeValues: { ':before': before, ':after': after, ':one': 1 },
  });
}

/** The subscription keys a webhook has items under: its keys while enabled, none otherwise. */
export function activeSubscriptionKeys(item: WebhookItem): string[] {
  return statusOf(item) === 'enabled' ? webhookSubscriptionKeys(item) : [];
}

/**
 * A subscription item. A filtered webhook's items also carry its filter, the `updatedAt` of the
 * version they were written at (the key its compiled form is cached under) and its name (which
 * the payload holds), so fan-out evaluates the filter from the item it reads anyway; an ordered
 * webhook's items carry `ordered: true` (ADR 0020), so fan-out routes its keyed deliveries to the
 * ordered path without reading the webhook. A plain webhook's items carry nothing more, and
 * fan-out reads nothing more for it.
 */
function subscriptionPut(item: WebhookItem, subscriptionKey: string) {
  return {
    Put: {
      TableName: tableName('webhookSubscriptions'),
      Item: {
        subscriptionKey,
        webhookId: item.id,
        createdBy: item.createdBy,
        global: item.global,
        ...(item.filter !== undefined
          ? { filter: item.filter, updatedAt: item.updatedAt, webhookName: item.name }
          : {}),
        ...(item.ordered === true ? { ordered: true } : {}),
      },
    },
  };
}

function subscriptionDelete(id: number, subscriptionKey: string) {
  return {
    Delete: { TableName: tableName('webhookSubscriptions'), Key: { subscriptionKey, webhookId: id } },
  };
}

/**
 * The subscription items a change from `before` to `after` deletes, writes, and writes again
 * (the kept ones, when the webhook has or had a filter: their copy of it, of its version and of
 * the name moves with every change; and when `ordered` changes, which they carry too). A webhook
 * has at most one item per subscribable name, fewer than MAX_SUBSCRIPTION_CHANGES, so switching
 * `ordered` alone always fits one change.
 */
export function subscriptionChanges(
  before: WebhookItem,
  after: WebhookItem,
): { remove: string[]; add: string[]; rewrite: string[] } {
  const old = new Set(activeSubscriptionKeys(before));
  const next = new Set(activeSubscriptionKeys(after));
  const filtered = before.filter !== undefined || after.filter !== undefined;
  const reordered = (before.ordered === true) !== (after.ordered === true);
  return {
    remove: [...old].filter((k) => !next.has(k)),
    add: [...next].filter((k) => !old.has(k)),
    rewrite: filtered || reordered ? [...next].filter((k) => old.has(k)) : [],
  };
}

/** DynamoDB's limit on the items of one transaction. */
const TRANSACTION_LIMIT = 100;
/**
 * Subscription items one change may delete and write together (the rest of the limit is the
 * webhook, its two URL counters and its key set).
 */
export const MAX_SUBSCRIPTION_CHANGES = TRANSACTION_LIMIT - 4;

/** The condition that the stored webhook is still the version `item` was read at. */
function sameVersion(item: WebhookItem) {
  return item.version === undefined
    ? { ConditionExpression: 'attribute_exists(id) AND attribute_not_exists(version)' }
    : {
        ConditionExpression: 'version = :version',
        ExpressionAttributeValues: { ':version': item.version },
      };
}

export type ReplaceOutcome = 'replaced' | 'changed' | 'sameUrl';

/**
 * Replaces `before` by `after` (whose `version` must be one more) with the subscription items,
 * the key set when the public keys change, and, when the canonical URL changes, the owner's
 * per-URL counters, all in one transaction.
 * `changed` when the stored webhook is no longer `before` (a concurrent change or delete won:
 * read again); `sameUrl` when the owner already has `sameUrlLimit` webhooks with the new URL.
 */
export async function replaceWebhook(
  before: WebhookItem,
  after: WebhookItem,
  sameUrlLimit: number,
): Promise<ReplaceOutcome> {
  const { remove, add, rewrite } = subscriptionChanges(before, after);
  const urlMoves = targetKey(before) !== targetKey(after);
  if (urlMoves) await ensureOwnerCounters(after, listWebhooksByOwner);
  const items = [
    { Put: { TableName: tableName('webhooks'), Item: after, ...sameVersion(before) } },
    ...(urlMoves
      ? [counterUpdate(urlCounter(after), 1, sameUrlLimit), counterUpdate(urlCounter(before), -1)]
      : []),
    ...remove.map((key) => subscriptionDelete(before.id, key)),
    ...[...add, ...rewrite].map((key) => subscriptionPut(after, key)),
    ...keySetChange(before, after),
  ];
  try {
    await transactWrite(items);
    return 'replaced';
  } catch (error) {
    if (!isTransactionCancelled(error)) throw error;
    const [webhook, newUrl] = cancellationCodes(error);
    if (webhook === 'ConditionalCheckFailed') return 'changed';
    if (urlMoves && newUrl === 'ConditionalCheckFailed') return 'sameUrl';
    // A conflict with a concurrent transaction on one of the items: read again and retry.
    return 'changed';
  }
}

/**
 * Deletes the webhook and its subscriptions if it is still the version read: `deleted`, `gone`
 * when it no longer exists, `changed` when a concurrent change won (read again).
 */
export async function deleteWebhookItem(item: WebhookItem): Promise<'deleted' | 'gone' | 'changed'> {
  await ensureOwnerCounters(item, listWebhooksByOwner);
  try {
    await transactWrite([
      counterUpdate(ownerCounter(item.createdBy), -1),
      counterUpdate(urlCounter(item), -1),
      { Delete: { TableName: tableName('webhooks'), Key: { id: item.id }, ...sameVersion(item) } },
      ...activeSubscriptionKeys(item).map((key) => subscriptionDelete(item.id, key)),
      ...keySetDelete(item),
    ]);
    return 'deleted';
  } catch (error) {
    if (!isTransactionCancelled(error)) throw error;
    return (await getWebhookItem(item.id, true)) ? 'changed' : 'gone';
  }
}

/**
 * A subscribed webhook as its subscription item names it (a filtered one with its filter, an
 * ordered one with `ordered: true`).
 */
export interface Subscription {
  webhookId: number;
  /** An ordered webhook (ADR 0020): its deliveries of keyed notifications are ordered per key. */
  ordered?: boolean;
  filter?: string;
  updatedAt?: string;
  webhookName?: string;
}

/** One page of the webhooks subscribed under `key`, in id order, after `after` (exclusive). */
export async function subscriptionPage(
  key: string,
  after: number | undefined,
  limit: number,
): Promise<{ subscriptions: Subscription[]; next?: number }> {
  const out = await documentClient.send(
    new QueryCommand({
      TableName: tableName('webhookSubscriptions'),
      KeyConditionExpression: 'subscriptionKey = :k',
      ExpressionAttributeValues: { ':k': key },
      ProjectionExpression: 'webhookId, #filter, updatedAt, webhookName, ordered',
      ExpressionAttributeNames: { '#filter': 'filter' },
      Limit: limit,
      ...(after !== undefined ? { ExclusiveStartKey: { subscriptionKey: key, webhookId: after } } : {}),
    }),
  );
  const subscriptions = (out.Items ?? []) as Subscription[];
  const last = subscriptions.at(-1)?.webhookId;
  return out.LastEvaluatedKey && last !== undefined ? { subscriptions, next: last } : { subscriptions };
}

/** Which of `ids` are also subscribed under `key` (one BatchGet). */
export async function alsoSubscribed(key: string, ids: readonly number[]): Promise<Set<number>> {
  const items = await batchGetAll<{ webhookId: number }>(
    tableName('webhookSubscriptions'),
    ids.map((webhookId) => ({ subscriptionKey: key, webhookId })),
  );
  return new Set(items.map((item) => item.webhookId));
}

/**
 * The failure streak's marks on the webhook item, each one conditional UpdateItem written only
 * when the outcome class changes (first failure after a success, first success after failures)
 * or once per streak (the warning). They do not move `version`: a concurrent change of the
 * webhook may put back the streak mark it read, which the next attempt's outcome corrects.
 * False when the condition did not hold (another attempt wrote it first, or it is gone).
 */
export function markFailing(id: number, at: string): Promise<boolean> {
  return conditionalUpdate({
    TableName: tableName('webhooks'),
    Key: { id },
    UpdateExpression: 'SET failingSince = :at',
    ConditionExpression: 'attribute_exists(id) AND attribute_not_exists(failingSince)',
    ExpressionAttributeValues: { ':at': at },
  });
}

export function clearFailing(id: number): Promise<boolean> {
  return conditionalUpdate({
    TableName: tableName('webhooks'),
    Key: { id },
    UpdateExpression: 'REMOVE failingSince, failWarnedAt',
    ConditionExpression: 'attribute_exists(failingSince)',
  });
}

export function markWarned(id: number, since: string, at: string): Promise<boolean> {
  return conditionalUpdate({
    TableName: tableName('webhooks'),
    Key: { id },
    UpdateExpression: 'SET failWarnedAt = :at',
    ConditionExpression: 'failingSince = :since AND attribute_not_exists(failWarnedAt)',
    ExpressionAttributeValues: { ':at': at, ':since': since },
  });
}
