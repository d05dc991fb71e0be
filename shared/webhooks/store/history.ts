/**
 * DynamoDB access for the webhook history (the key model is history-keys.ts; who may see what
 * is api/history.ts): the record write with its four day counters in one transaction, reads by
 * id, index queries by partition and counter reads.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../store/clients';
import { batchGetAll, queryAll, sleep } from '../../store/read';
import { tableName } from '../../store/tables';
import { cancellationCodes, isTransactionCancelled, transactWrite } from '../../store/write';
import { historyRetentionDays } from '../config';
import {
  audienceOf,
  dayOf,
  expiresAtFor,
  HISTORY_INDEXES,
  type IndexKind,
  type NewHistoryRecord,
  newHistoryId,
  outcomeOf,
  recordPartitions,
  type StoredHistoryRecord,
} from './history-keys';

/** Writes one record and bumps its four day counters in one transaction. */
export async function writeHistoryRecord(input: NewHistoryRecord): Promise<StoredHistoryRecord> {
  const retention = historyRetentionDays();
  for (let round = 0; round < 10; round++) {
    const now = Date.now();
    const { global, retryOf, request, ...fields } = input;
    const audience = audienceOf({ global, createdBy: input.createdBy });
    const parts = recordPartitions(audience, input.notificationType, outcomeOf(input.statusCode));
    const createdAt = new Date(now).toISOString();
    const expiresAt = expiresAtFor(now, retention);
    const item: StoredHistoryRecord = {
      ...fields,
      // As text: a producer's metadata may hold what a DynamoDB document cannot (see history-keys.ts).
      request: JSON.stringify(request),
      ...(retryOf !== undefined ? { retryOf } : {}),
      id: newHistoryId(now),
      createdAt,
      updatedAt: createdAt,
      audience,
      expiresAt,
      aud: parts.all,
      audType: parts.type,
      audOutcome: parts.outcome,
      audTypeOutcome: parts.typeOutcome,
    };
    const day = dayOf(now);
    try {
      await transactWrite([
        {
          Put: {
            TableName: tableName('webhookHistory'),
            Item: item,
            ConditionExpression: 'attribute_not_exists(id)',
          },
        },
        ...Object.values(parts).map((partition) => ({
          Update: {
            TableName: tableName('webhookHistoryCounts'),
            Key: { key: `${partition}|${day}` },
            UpdateExpression: 'ADD #n :one SET expiresAt = :exp',
            ExpressionAttributeNames: { '#n': 'n' },
            ExpressionAttributeValues: { ':one': 1, ':exp': expiresAt },
          },
        })),
      ]);
      return item;
    } catch (error) {
      const codes = cancellationCodes(error);
      const retryable =
        isTransactionCancelled(error) &&
        codes.every((c) => c === 'None' || c === 'ConditionalCheckFailed' || c === 'TransactionConflict');
      if (!retryable && (error as Error).name !== 'TransactionConflictException') throw error;
      // An id collision draws a new id; a conflict on a busy counter backs off with jitter.
      await sleep(Math.random() * 20 * (round + 1));
    }
  }
  throw new Error('could not write the history record (too many collisions or conflicts)');
}

export async function getHistoryRecord(id: number): Promise<StoredHistoryRecord | undefined> {
  const out = await documentClient.send(
    new GetCommand({ TableName: tableName('webhookHistory'), Key: { id } }),
  );
  const item = out.Item as StoredHistoryRecord | undefined;
  if (!item || item.expiresAt * 1000 <= Date.now()) return undefined;
  return item;
}

/** The number of live records in `partitions`: the sum of their day counters over `days`. */
export async function countPartitions(
  partitions: readonly string[],
  days: readonly string[],
): Promise<number> {
  const keys = partitions.flatMap((p) => days.map((d) => ({ key: `${p}|${d}` })));
  const counters = await batchGetAll<{ n?: number }>(tableName('webhookHistoryCounts'), keys);
  return counters.reduce((total, counter) => total + Number(counter.n ?? 0), 0);
}

/** Up to `limit` ids of live records (id ≥ `minId`) listed under one partition, in id order. */
export async function partitionIds(
  kind: IndexKind,
  partition: string,
  minId: number,
  ascending: boolean,
  limit: number,
): Promise<number[]> {
  const index = HISTORY_INDEXES[kind];
  const items = await queryAll<{ id: number }>(
    {
      TableName: tableName('webhookHistory'),
      IndexName: index.name,
      KeyConditionExpression: '#p = :p AND id >= :min',
      ExpressionAttributeNames: { '#p': index.attribute },
      ExpressionAttributeValues: { ':p': partition, ':min': minId },
      ScanIndexForward: ascending,
    },
    { limit },
  );
  return items.map((item) => item.id);
}

/** The records with these ids, in the same order (expired ones TTL has removed are left out). */
export function recordsById(ids: readonly number[]): Promise<StoredHistoryRecord[]> {
  return batchGetAll<StoredHistoryRecord>(
    tableName('webhookHistory'),
    ids.map((id) => ({ id })),
  );
}
