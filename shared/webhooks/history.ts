/**
 * Webhook history: one record per delivery attempt, listed per caller at O(offset + pageSize).
 *
 * Ids: `createdAtMillis × 1000 + random(0‥999)`, written with a conditional put (a collision
 * draws again). They need no shared counter (no hot item), stay below
 * Number.MAX_SAFE_INTEGER until the year 2255, and sort like `createdAt` (ties broken by id).
 * Records are immutable, so `createdAt`, `updatedAt` and `id` order alike.
 *
 * Audiences: a record belongs to `global` (a global webhook's delivery, visible to admins) or
 * `user#<ownerId>` (a personal webhook's, visible to its owner). Each record carries one
 * partition value per filter combination — audience, audience+type, audience+outcome,
 * audience+type+outcome — each the key of a KEYS_ONLY GSI sorted by id. A page therefore reads
 * `offset + pageSize` index keys from one partition per selected audience (two at most, merged)
 * and then `pageSize` records by key.
 *
 * Counts: every record write adds 1 to a per-day counter of each of its four partitions, in the
 * same transaction as the record. Records expire at a day boundary (`expiresAt` = the end of
 * their creation day + the retention), so the visible window is "days ≥ today − retention" and
 * `count` is the sum of at most retention+1 day counters per partition — independent of the
 * number of records. Queries apply the same window as a key condition (id ≥ first live id),
 * so records TTL has not yet removed are never listed.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Principal } from '../auth/permissions';
import { isAdmin } from '../auth/permissions';
import { documentClient } from '../store/clients';
import { batchGetAll, queryAll, sleep } from '../store/read';
import { tableName } from '../store/tables';
import { cancellationCodes, isTransactionCancelled, transactWrite } from '../store/write';
import { historyRetentionDays } from './config';
import type { HistoryPage, HistoryQuery, HistoryRecord } from './model';

const DAY_MS = 86_400_000;
const ID_SPREAD = 1000;

export type Outcome = 'success' | 'failure';

export const HISTORY_INDEXES = {
  all: { name: 'byAudience', attribute: 'aud' },
  type: { name: 'byAudienceType', attribute: 'audType' },
  outcome: { name: 'byAudienceOutcome', attribute: 'audOutcome' },
  typeOutcome: { name: 'byAudienceTypeOutcome', attribute: 'audTypeOutcome' },
} as const;
type IndexKind = keyof typeof HISTORY_INDEXES;

export function audienceOf(webhook: { global: boolean; createdBy: number }): string {
  return webhook.global ? 'global' : `user#${webhook.createdBy}`;
}

export function outcomeOf(statusCode: number): Outcome {
  return statusCode >= 200 && statusCode < 300 ? 'success' : 'failure';
}

function partitionValue(kind: IndexKind, audience: string, type?: string, outcome?: Outcome): string {
  switch (kind) {
    case 'all':
      return `a|${audience}`;
    case 'type':
      return `t|${audience}|${type}`;
    case 'outcome':
      return `o|${audience}|${outcome}`;
    case 'typeOutcome':
      return `to|${audience}|${type}|${outcome}`;
  }
}

/** The four partition values a record is listed under. */
export function recordPartitions(
  audience: string,
  type: string,
  outcome: Outcome,
): Record<IndexKind, string> {
  return {
    all: partitionValue('all', audience),
    type: partitionValue('type', audience, type),
    outcome: partitionValue('outcome', audience, undefined, outcome),
    typeOutcome: partitionValue('typeOutcome', audience, type, outcome),
  };
}

export function newHistoryId(nowMs: number, random: () => number = Math.random): number {
  return nowMs * ID_SPREAD + Math.floor(random() * ID_SPREAD);
}

export function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

function startOfDay(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

/** Epoch seconds at which a record created at `ms` expires. */
export function expiresAtFor(ms: number, retentionDays: number): number {
  return (startOfDay(ms) + (retentionDays + 1) * DAY_MS) / 1000;
}

/** The live days (newest last) and the smallest live id. */
export function liveWindow(nowMs: number, retentionDays: number): { days: string[]; minId: number } {
  const first = startOfDay(nowMs) - retentionDays * DAY_MS;
  const days: string[] = [];
  for (let d = first; d <= nowMs; d += DAY_MS) days.push(dayOf(d));
  return { days, minId: first * ID_SPREAD };
}

export interface StoredHistoryRecord extends HistoryRecord {
  audience: string;
  retryOf?: number;
  expiresAt: number;
  aud: string;
  audType: string;
  audOutcome: string;
  audTypeOutcome: string;
}

export type NewHistoryRecord = Omit<HistoryRecord, 'id' | 'createdAt' | 'updatedAt'> & {
  global: boolean;
  retryOf?: number;
};

export function historyView(item: StoredHistoryRecord): HistoryRecord & { retryOf?: number } {
  return {
    id: item.id,
    request: item.request,
    response: item.response,
    statusCode: item.statusCode,
    notificationType: item.notificationType,
    webhooksActivityId: item.webhooksActivityId,
    createdAt: item.createdAt,
    updatedAt: item.updatedAt,
    webhooksId: item.webhooksId,
    url: item.url,
    name: item.name,
    actionType: item.actionType ?? null,
    createdBy: item.createdBy,
    deliveryId: item.deliveryId,
    attempt: item.attempt,
    ...(item.retryOf !== undefined ? { retryOf: item.retryOf } : {}),
  };
}

/** Writes one record and bumps its four day counters in one transaction. */
export async function writeHistoryRecord(input: NewHistoryRecord): Promise<StoredHistoryRecord> {
  const retention = historyRetentionDays();
  for (let round = 0; round < 10; round++) {
    const now = Date.now();
    const { global, retryOf, ...fields } = input;
    const audience = audienceOf({ global, createdBy: input.createdBy });
    const parts = recordPartitions(audience, input.notificationType, outcomeOf(input.statusCode));
    const createdAt = new Date(now).toISOString();
    const expiresAt = expiresAtFor(now, retention);
    const item: StoredHistoryRecord = {
      ...fields,
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

/** Whether the caller may see a record: their personal webhooks' records; global ones for admins. */
export function canSeeRecord(caller: Principal, record: Pick<StoredHistoryRecord, 'audience'>): boolean {
  if (record.audience === `user#${caller.userId}`) return true;
  return record.audience === 'global' && isAdmin(caller);
}

/** The audiences a history query selects for the caller. */
export function selectedAudiences(
  caller: Principal,
  query: Pick<HistoryQuery, 'includeUser' | 'includeGlobal'>,
): string[] {
  const audiences: string[] = [];
  if (query.includeUser) audiences.push(`user#${caller.userId}`);
  // Global webhooks are admin-only, and so is their history.
  if (query.includeGlobal && isAdmin(caller)) audiences.push('global');
  return audiences;
}

function indexKind(query: Pick<HistoryQuery, 'notificationType' | 'successOrFailure'>): IndexKind {
  if (query.notificationType && query.successOrFailure) return 'typeOutcome';
  if (query.notificationType) return 'type';
  if (query.successOrFailure) return 'outcome';
  return 'all';
}

async function countPartitions(partitions: readonly string[], days: readonly string[]): Promise<number> {
  const keys = partitions.flatMap((p) => days.map((d) => ({ key: `${p}|${d}` })));
  const counters = await batchGetAll<{ n?: number }>(tableName('webhookHistoryCounts'), keys);
  return counters.reduce((total, counter) => total + Number(counter.n ?? 0), 0);
}

async function partitionIds(
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

function recordsById(ids: readonly number[]): Promise<StoredHistoryRecord[]> {
  return batchGetAll<StoredHistoryRecord>(
    tableName('webhookHistory'),
    ids.map((id) => ({ id })),
  );
}

export async function queryHistory(
  caller: Principal,
  query: HistoryQuery,
  nowMs = Date.now(),
): Promise<HistoryPage> {
  const audiences = selectedAudiences(caller, query);
  if (audiences.length === 0) return { count: 0, records: [] };
  const kind = indexKind(query);
  const partitions = audiences.map((a) =>
    partitionValue(kind, a, query.notificationType, query.successOrFailure),
  );
  const window = liveWindow(nowMs, historyRetentionDays());
  const ascending = query.sortOrder === 'asc';
  const need = query.offset + query.pageSize;
  const [count, lists] = await Promise.all([
    countPartitions(partitions, window.days),
    Promise.all(partitions.map((p) => partitionIds(kind, p, window.minId, ascending, need))),
  ]);
  const merged = lists.flat().sort((a, b) => (ascending ? a - b : b - a));
  const page = merged.slice(query.offset, need);
  const records = await recordsById(page);
  return { count, records: records.map(historyView) };
}
