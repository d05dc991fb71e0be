/**
 * The ordered keys that are not flowing (ADR 0020), in table `orderedKeys`:
 * - a **state item** per (webhook, key) that is parked, held or draining
 *   (`pk = webhook#<id>`, `sk = key#<orderingKey>`);
 * - the key's **log**: the deliveries waiting behind its head, in order
 *   (`pk = log#<id>#<orderingKey>`, `sk` = the zero-padded append number), the head first.
 *
 * A flowing key has no item: the ordered delivery path reads one item (strongly consistent) per
 * attempt and writes nothing here. Every change of a key's log moves its counters in the same
 * transaction (`appended`: entries ever appended, the newest's number; `removed`: entries taken
 * off), so the drain can finish only when nothing was appended since it looked.
 *
 * A deleted webhook's keys are purged by their drain messages (`purgeKey`): nothing of them stays.
 */
import { DeleteCommand, GetCommand, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../store/clients';
import { tableName } from '../../store/tables';
import {
  conditionalDelete,
  conditionalUpdate,
  conditionalUpdateReturning,
  isTransactionCancelled,
  transactWrite,
} from '../../store/write';
import type { DeliveryMessage } from '../pipeline/message';

/** parked: the schedule ran out; held: the webhook was disabled too long; draining: being sent again. */
export type KeyState = 'parked' | 'held' | 'draining';

export interface OrderedKeyItem {
  pk: string;
  sk: string;
  webhookId: number;
  orderingKey: string;
  state: KeyState;
  /** The delivery at the head of the key when it was parked or held. */
  headDeliveryId: string;
  /** When the key was parked or held (ISO 8601). */
  parkedAt: string;
  /** Why the head's last attempt failed (parked keys). */
  lastError?: string;
  /** The automatic attempts the head had made when the key was parked. */
  headAttempts: number;
  /** Log entries ever appended: the newest's number. */
  appended: number;
  /** Log entries taken off (sent, skipped, or ended). */
  removed: number;
  /** Set by a resume: the head's schedule starts over after this many attempts (ADR 0020). */
  attemptBase?: number;
  /**
   * Set by a skip: the head the drain records as skipped (as attempt `headAttempts + 1`, so a
   * drain run again records it once) and takes off.
   */
  skipHead?: { deliveryId: string };
}

export interface LogEntry {
  seq: number;
  message: DeliveryMessage;
}

const table = () => tableName('orderedKeys');
const statePk = (webhookId: number) => `webhook#${webhookId}`;
const stateSk = (orderingKey: string) => `key#${orderingKey}`;
const logPk = (webhookId: number, orderingKey: string) => `log#${webhookId}#${orderingKey}`;
/** Zero-padded so that the sort key's string order is the append order. */
const logSk = (seq: number) => String(seq).padStart(12, '0');
const stateKey = (webhookId: number, orderingKey: string) => ({
  pk: statePk(webhookId),
  sk: stateSk(orderingKey),
});

/** How many keys' deliveries are waiting: the log's length. */
export const waitingOf = (item: Pick<OrderedKeyItem, 'appended' | 'removed'>): number =>
  item.appended - item.removed;

/** The key's state item (strongly consistent), or undefined for a flowing key. */
export async function keyState(webhookId: number, orderingKey: string): Promise<OrderedKeyItem | undefined> {
  const out = await documentClient.send(
    new GetCommand({ TableName: table(), Key: stateKey(webhookId, orderingKey), ConsistentRead: true }),
  );
  return out.Item as OrderedKeyItem | undefined;
}

/**
 * Parks (or holds) a flowing key with `head` as its log's first entry: the state item and the
 * entry in one transaction, only if the key has no state item. False when it has one already.
 */
export async function parkFlowingKey(
  head: DeliveryMessage & { orderingKey: string },
  state: 'parked' | 'held',
  facts: { headAttempts: number; lastError?: string },
): Promise<boolean> {
  const { webhookId, orderingKey } = head;
  const item: OrderedKeyItem = {
    ...stateKey(webhookId, orderingKey),
    webhookId,
    orderingKey,
    state,
    headDeliveryId: head.deliveryId,
    parkedAt: new Date().toISOString(),
    ...(facts.lastError !== undefined ? { lastError: facts.lastError } : {}),
    headAttempts: facts.headAttempts,
    appended: 1,
    removed: 0,
  };
  try {
    await transactWrite([
      { Put: { TableName: table(), Item: item, ConditionExpression: 'attribute_not_exists(pk)' } },
      { Put: { TableName: table(), Item: logItem(webhookId, orderingKey, 1, head) } },
    ]);
    return true;
  } catch (error) {
    if (isTransactionCancelled(error)) return false;
    throw error;
  }
}

function logItem(webhookId: number, orderingKey: string, seq: number, message: DeliveryMessage) {
  return { pk: logPk(webhookId, orderingKey), sk: logSk(seq), seq, message: JSON.stringify(message) };
}

/** Tries of an append whose counter another write moved first. */
const APPEND_TRIES = 8;

/**
 * Appends a delivery to a key that has a state item (as `seen`): the entry and `appended + 1`
 * in one transaction, conditional on the counter read. False when the key has no state item
 * any more (it went back to flowing: the caller sends the delivery as usual).
 */
export async function appendToKey(seen: OrderedKeyItem, message: DeliveryMessage): Promise<boolean> {
  let current: OrderedKeyItem | undefined = seen;
  for (let tries = 1; current; tries++) {
    const seq = current.appended + 1;
    try {
      await transactWrite([
        {
          Update: {
            TableName: table(),
            Key: stateKey(current.webhookId, current.orderingKey),
            UpdateExpression: 'SET appended = :seq',
            ConditionExpression: 'appended = :read',
            ExpressionAttributeValues: { ':seq': seq, ':read': current.appended },
          },
        },
        {
          Put: {
            TableName: table(),
            Item: logItem(current.webhookId, current.orderingKey, seq, message),
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
      ]);
      return true;
    } catch (error) {
      if (!isTransactionCancelled(error) || tries >= APPEND_TRIES) throw error;
    }
    current = await keyState(current.webhookId, current.orderingKey);
  }
  return false;
}

/** The key's first waiting delivery (strongly consistent), or undefined when its log is empty. */
export async function firstWaiting(webhookId: number, orderingKey: string): Promise<LogEntry | undefined> {
  const out = await documentClient.send(
    new QueryCommand({
      TableName: table(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': logPk(webhookId, orderingKey) },
      ConsistentRead: true,
      Limit: 1,
    }),
  );
  const item = out.Items?.[0] as { seq: number; message: string } | undefined;
  return item && { seq: item.seq, message: JSON.parse(item.message) as DeliveryMessage };
}

/**
 * Takes entry `seq` off the key's log and counts it, together; a second call for the same entry
 * (a drain run again after a crash) changes nothing. `clearSkip` also clears a pending skip.
 */
export async function removeWaiting(
  webhookId: number,
  orderingKey: string,
  seq: number,
  clearSkip = false,
): Promise<void> {
  try {
    await transactWrite([
      {
        Delete: {
          TableName: table(),
          Key: { pk: logPk(webhookId, orderingKey), sk: logSk(seq) },
          ConditionExpression: 'attribute_exists(pk)',
        },
      },
      {
        Update: {
          TableName: table(),
          Key: stateKey(webhookId, orderingKey),
          UpdateExpression: `SET removed = removed + :one${clearSkip ? ' REMOVE skipHead' : ''}`,
          ExpressionAttributeValues: { ':one': 1 },
          ConditionExpression: 'attribute_exists(pk)',
        },
      },
    ]);
  } catch (error) {
    if (!isTransactionCancelled(error)) throw error;
    // Taken off already (a drain run again); a pending skip of it is done.
    if (clearSkip) await clearSkipOf(webhookId, orderingKey);
  }
}

/** A skip's head was taken off already: the mark goes. */
export async function clearSkipOf(webhookId: number, orderingKey: string): Promise<void> {
  await conditionalUpdate({
    TableName: table(),
    Key: stateKey(webhookId, orderingKey),
    UpdateExpression: 'REMOVE skipHead',
    ConditionExpression: 'attribute_exists(pk)',
  });
}

/**
 * A draining key's log is empty: the key flows again (its state item deleted), only if nothing
 * was appended since `seen` was read. False when something was (the drain goes on).
 */
export function finishDrain(seen: OrderedKeyItem): Promise<boolean> {
  return conditionalDelete({
    TableName: table(),
    Key: stateKey(seen.webhookId, seen.orderingKey),
    ConditionExpression: '#state = :draining AND appended = :appended AND removed = appended',
    ExpressionAttributeNames: { '#state': 'state' },
    ExpressionAttributeValues: { ':draining': 'draining', ':appended': seen.appended },
  });
}

/** A draining key stops again: parked when its head's schedule ran out, held when its webhook is disabled. */
export function stopDrain(
  webhookId: number,
  orderingKey: string,
  state: 'parked' | 'held',
  head: { deliveryId: string; attempts: number; lastError?: string },
): Promise<boolean> {
  return conditionalUpdate({
    TableName: table(),
    Key: stateKey(webhookId, orderingKey),
    UpdateExpression:
      'SET #state = :state, headDeliveryId = :head, headAttempts = :attempts, parkedAt = :at' +
      (head.lastError !== undefined ? ', lastError = :error' : '') +
      ' REMOVE attemptBase',
    ConditionExpression: '#state = :draining',
    ExpressionAttributeNames: { '#state': 'state' },
    ExpressionAttributeValues: {
      ':state': state,
      ':head': head.deliveryId,
      ':attempts': head.attempts,
      ':at': new Date().toISOString(),
      ':draining': 'draining',
      ...(head.lastError !== undefined ? { ':error': head.lastError } : {}),
    },
  });
}

/**
 * Starts draining a parked or held key: a resume (its head's schedule starts over after the
 * attempts it made), or a skip of head `skip` (recorded and taken off by the drain). The key as
 * it now is, or undefined when it is in none of the `from` states (or, for a skip, its head is
 * another delivery).
 */
export async function startDrain(
  webhookId: number,
  orderingKey: string,
  from: readonly ('parked' | 'held')[],
  skip?: { deliveryId: string },
): Promise<OrderedKeyItem | undefined> {
  const states = Object.fromEntries(from.map((state, i) => [`:from${i}`, state]));
  return (await conditionalUpdateReturning({
    TableName: table(),
    Key: stateKey(webhookId, orderingKey),
    UpdateExpression: skip
      ? 'SET #state = :draining, skipHead = :skip, attemptBase = :zero'
      : 'SET #state = :draining, attemptBase = headAttempts',
    ConditionExpression: `#state IN (${Object.keys(states).join(', ')})${skip ? ' AND headDeliveryId = :head' : ''}`,
    ExpressionAttributeNames: { '#state': 'state' },
    ExpressionAttributeValues: {
      ':draining': 'draining',
      ...states,
      ...(skip ? { ':skip': { deliveryId: skip.deliveryId }, ':zero': 0, ':head': skip.deliveryId } : {}),
    },
  })) as OrderedKeyItem | undefined;
}

/** One page of a webhook's keys that are not flowing, in key order; `state` keeps only those. */
export async function listKeys(
  webhookId: number,
  options: { state?: KeyState; pageSize: number; after?: string },
): Promise<{ keys: OrderedKeyItem[]; last?: string }> {
  const keys: OrderedKeyItem[] = [];
  let start: QueryCommandInput['ExclusiveStartKey'] =
    options.after === undefined ? undefined : stateKey(webhookId, options.after);
  // A filter reads past the keys it drops: read on until the page is full or the keys end.
  do {
    const out = await documentClient.send(
      new QueryCommand({
        TableName: table(),
        KeyConditionExpression: 'pk = :pk',
        ...(options.state !== undefined
          ? {
              FilterExpression: '#state = :state',
              ExpressionAttributeNames: { '#state': 'state' },
            }
          : {}),
        ExpressionAttributeValues: {
          ':pk': statePk(webhookId),
          ...(options.state !== undefined ? { ':state': options.state } : {}),
        },
        Limit: options.pageSize - keys.length,
        ...(start !== undefined ? { ExclusiveStartKey: start } : {}),
      }),
    );
    keys.push(...((out.Items ?? []) as OrderedKeyItem[]));
    start = out.LastEvaluatedKey;
  } while (start !== undefined && keys.length < options.pageSize);
  const lastKey = keys.at(-1)?.orderingKey;
  return start === undefined || lastKey === undefined ? { keys } : { keys, last: lastKey };
}

/** Every key of the webhook that is not flowing (`state`: only those), page after page of 100. */
export async function* allKeys(webhookId: number, state?: KeyState): AsyncGenerator<OrderedKeyItem> {
  let after: string | undefined;
  do {
    const page = await listKeys(webhookId, {
      pageSize: 100,
      ...(state !== undefined ? { state } : {}),
      ...(after !== undefined ? { after } : {}),
    });
    yield* page.keys;
    after = page.last;
  } while (after !== undefined);
}

/** Whether the webhook has any key that is not flowing (one item read at most). */
export async function anyKeyNotFlowing(webhookId: number): Promise<boolean> {
  const out = await documentClient.send(
    new QueryCommand({
      TableName: table(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': statePk(webhookId) },
      ProjectionExpression: 'pk',
      ConsistentRead: true,
      Limit: 1,
    }),
  );
  return (out.Items?.length ?? 0) > 0;
}

/** How many of the webhook's keys are parked (a COUNT of its state items, up to `cap` read). */
export async function parkedCount(webhookId: number, cap = 1000): Promise<number> {
  let count = 0;
  let scanned = 0;
  let start: QueryCommandInput['ExclusiveStartKey'];
  do {
    const out = await documentClient.send(
      new QueryCommand({
        TableName: table(),
        KeyConditionExpression: 'pk = :pk',
        FilterExpression: '#state = :parked',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':pk': statePk(webhookId), ':parked': 'parked' },
        Select: 'COUNT',
        Limit: cap - scanned,
        ...(start !== undefined ? { ExclusiveStartKey: start } : {}),
      }),
    );
    count += out.Count ?? 0;
    scanned += out.ScannedCount ?? 0;
    start = out.LastEvaluatedKey;
  } while (start !== undefined && scanned < cap);
  return count;
}

/** Log entries a purge deletes per call at most, DELETE_AT_ONCE at a time. */
const PURGE_PAGE = 100;
const DELETE_AT_ONCE = 25;

/**
 * Removes what a key of a deleted webhook left: its state item first (a delivery that read the
 * webhook before it went can then no longer append behind it: its append is conditional on the
 * state item), then its log, up to PURGE_PAGE entries a call. True when the log is empty; a call
 * made again (a drain message received twice, or after a crash) finds less to do.
 */
export async function purgeKey(webhookId: number, orderingKey: string): Promise<boolean> {
  await documentClient.send(new DeleteCommand({ TableName: table(), Key: stateKey(webhookId, orderingKey) }));
  const out = await documentClient.send(
    new QueryCommand({
      TableName: table(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': logPk(webhookId, orderingKey) },
      ProjectionExpression: 'pk, sk',
      ConsistentRead: true,
      Limit: PURGE_PAGE,
    }),
  );
  const entries = (out.Items ?? []) as { pk: string; sk: string }[];
  for (let at = 0; at < entries.length; at += DELETE_AT_ONCE) {
    await Promise.all(
      entries
        .slice(at, at + DELETE_AT_ONCE)
        .map(({ pk, sk }) => documentClient.send(new DeleteCommand({ TableName: table(), Key: { pk, sk } }))),
    );
  }
  return out.LastEvaluatedKey === undefined;
}
