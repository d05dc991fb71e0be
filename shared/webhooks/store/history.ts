/**
 * DynamoDB access for the delivery history's records (the key model is history-keys.ts; who may
 * see what is api/history.ts): the one conditional PutItem per record, a delivery's attempts,
 * records by key and by id, and the recover job's reads. Listing pages merged over the shard
 * partitions are history-listing.ts; the counters the stream consumer keeps, delivery-counts.ts.
 */
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../store/clients';
import { batchGetAll, queryAll } from '../../store/read';
import { tableName } from '../../store/tables';
import { conditionalPut } from '../../store/write';
import { historyRetentionDays, historyWriteShards } from '../config';
import type { DeliveryPayload, HistoryRecord } from '../history-model';
import type { Classed, OutcomeClass } from '../outcome-class';
import { nextHistoryId } from './history-ids';
import {
  AUTOMATIC_ATTEMPT_LIMIT,
  audienceOf,
  createdAtOf,
  expiresAtFor,
  HISTORY_INDEXES,
  type HistoryKey,
  historyKeyOf,
  ID_SLOTS,
  listingKeys,
  OUTCOMES,
  outcomeOf,
  type StoredHistoryRecord,
  type StoredKey,
  type StoredResponse,
  storedKey,
  webhookListingKey,
} from './history-keys';
import { packText } from './history-text';

/** Per audience, the next write shard of this container (round-robin from a random start). */
const shardCursor = new Map<string, number>();
const SHARD_CURSOR_LIMIT = 10_000;

function nextShard(audience: string, shards: number): number {
  let next = shardCursor.get(audience);
  if (next === undefined) {
    if (shardCursor.size >= SHARD_CURSOR_LIMIT) shardCursor.clear();
    next = Math.floor(Math.random() * shards);
  }
  shardCursor.set(audience, (next + 1) % shards);
  return next % shards;
}

export interface NewHistoryRecord
  extends Omit<HistoryRecord, 'id' | 'createdAt' | 'updatedAt' | 'request' | 'response'> {
  request: DeliveryPayload;
  response: StoredResponse;
  durationMs: number;
  global: boolean;
  /** The attempt's class when its status does not tell it (../outcome-class.ts); absent otherwise. */
  outcomeClass?: OutcomeClass;
  retryOf?: number;
  /** A second POST of an attempt recorded already (delivery.ts): keyed by its id. */
  twin?: true;
  /** A recover job's re-send: the job. */
  recoverJob?: string;
}

/** The receiver's answer as stored: a long text body compressed. */
function packResponse(response: StoredResponse): StoredHistoryRecord['response'] {
  return typeof response.body === 'string' ? { ...response, body: packText(response.body) } : response;
}

/** The item of a new record: its id, write shard and listing keys (nothing is written yet). */
export async function newHistoryItem(input: NewHistoryRecord): Promise<StoredHistoryRecord> {
  const { global, retryOf, request, twin, ...fields } = input;
  const id = await nextHistoryId();
  const createdAtMs = Math.floor(id / ID_SLOTS);
  const audience = audienceOf({ global, createdBy: input.createdBy });
  const shard = nextShard(audience, historyWriteShards());
  return {
    ...fields,
    // An automatic attempt is keyed by its number; a manual retry and a twin POST by their id.
    ...storedKey({
      deliveryId: input.deliveryId,
      attemptOrId: retryOf === undefined && !twin ? input.attempt : id,
    }),
    id,
    createdAt: createdAtOf(id),
    // As text: a producer's metadata may hold what a DynamoDB document cannot (see history-keys.ts);
    // compressed when long (history-text.ts).
    request: packText(JSON.stringify(request)),
    response: packResponse(input.response),
    ...(retryOf !== undefined ? { retryOf } : {}),
    ...(twin ? { twin } : {}),
    audience,
    expiresAt: expiresAtFor(createdAtMs, historyRetentionDays()),
    ...listingKeys(audience, input.notificationType, outcomeOf(input.statusCode), shard),
    lw: webhookListingKey(input.webhooksId, shard),
  };
}

/**
 * The record's one write: a PutItem that succeeds only if this attempt has no record yet.
 * `duplicate` when another message of the same delivery attempt already recorded it.
 */
export async function putHistoryItem(item: StoredHistoryRecord): Promise<'stored' | 'duplicate'> {
  const stored = await conditionalPut({
    TableName: tableName('deliveryHistory'),
    Item: item,
    ConditionExpression: 'attribute_not_exists(deliveryId)',
  });
  return stored ? 'stored' : 'duplicate';
}

/** Builds and writes a record; throws if the attempt was recorded already. */
export async function writeHistoryRecord(input: NewHistoryRecord): Promise<StoredHistoryRecord> {
  const item = await newHistoryItem(input);
  if ((await putHistoryItem(item)) === 'duplicate')
    throw new Error(`attempt ${input.attempt} of ${input.deliveryId} is recorded already`);
  return item;
}

/**
 * An automatic attempt's record, as the delivery's next attempt judges it (pipeline/delivery.ts):
 * by its class, or by its status when it stores none (../outcome-class.ts).
 */
export interface RecordedAttempt extends Classed {
  attempt: number;
  /** Given up by an operator's skip of its parked key (ADR 0020): the delivery ended. */
  keySkipped?: true;
}

/** The automatic attempts recorded for a delivery (a strongly consistent read: 1 RCU for most). */
export async function recordedAttempts(deliveryId: string): Promise<RecordedAttempt[]> {
  const out = await documentClient.send(
    new QueryCommand({
      TableName: tableName('deliveryHistory'),
      KeyConditionExpression: 'deliveryId = :d AND seq < :manual',
      ExpressionAttributeValues: { ':d': deliveryId, ':manual': AUTOMATIC_ATTEMPT_LIMIT },
      ProjectionExpression: 'seq, statusCode, outcomeClass, keySkipped',
      ConsistentRead: true,
    }),
  );
  // Below the limit the stored key is the attempt number.
  return ((out.Items ?? []) as ({ seq: number; keySkipped?: true } & Classed)[]).map(
    ({ seq, statusCode, outcomeClass, keySkipped }) => ({
      attempt: seq,
      statusCode,
      ...(outcomeClass !== undefined ? { outcomeClass } : {}),
      ...(keySkipped ? { keySkipped } : {}),
    }),
  );
}

function live(item: StoredHistoryRecord | undefined): StoredHistoryRecord | undefined {
  return item && item.expiresAt * 1000 > Date.now() ? item : undefined;
}

export async function getHistoryItem(key: HistoryKey): Promise<StoredHistoryRecord | undefined> {
  const out = await documentClient.send(
    new GetCommand({ TableName: tableName('deliveryHistory'), Key: storedKey(key) }),
  );
  return live(out.Item as StoredHistoryRecord | undefined);
}

/**
 * The record with this id among the given audiences' records: one keys-only lookup per
 * audience, outcome and shard (the id does not say which), then the record by key.
 */
export async function findHistoryRecord(
  id: number,
  audiences: readonly string[],
): Promise<StoredHistoryRecord | undefined> {
  const partitions = audiences.flatMap((audience) =>
    OUTCOMES.flatMap((outcome) =>
      Array.from(
        { length: historyWriteShards() },
        (_, shard) => listingKeys(audience, '', outcome, shard).la,
      ),
    ),
  );
  const found = await Promise.all(
    partitions.map(async (partition) => {
      const out = await documentClient.send(
        new QueryCommand({
          TableName: tableName('deliveryHistory'),
          IndexName: HISTORY_INDEXES.audience.name,
          KeyConditionExpression: 'la = :p AND id = :id',
          ExpressionAttributeValues: { ':p': partition, ':id': id },
        }),
      );
      const entry = out.Items?.[0] as StoredKey | undefined;
      return entry ? historyKeyOf(entry) : undefined;
    }),
  );
  const key = found.find((entry) => entry !== undefined);
  return key ? getHistoryItem(key) : undefined;
}

/** The records with these keys, in the same order (expired ones TTL has removed are left out). */
export async function recordsByKey(keys: readonly HistoryKey[]): Promise<StoredHistoryRecord[]> {
  const items = await batchGetAll<StoredHistoryRecord>(tableName('deliveryHistory'), keys.map(storedKey));
  return items.filter((item) => live(item) !== undefined);
}

export interface WebhookIndexEntry extends HistoryKey {
  id: number;
  statusCode: number;
}

type StoredIndexEntry = StoredKey & { id: number; statusCode: number };

/** A delivery's record as the recover job decides on it: a re-send names its job. */
export interface DeliveryRecordEntry extends WebhookIndexEntry {
  recoverJob?: string;
}

const indexEntryOf = ({ id, deliveryId, seq, statusCode }: StoredIndexEntry): WebhookIndexEntry => ({
  id,
  ...historyKeyOf({ deliveryId, seq }),
  statusCode,
});

/** One page of a webhook's index entries in a shard, between two ids (the recover job's reads). */
export async function webhookWindowPage(
  webhookId: number,
  shard: number,
  range: { minId: number; maxId: number },
  start: Record<string, unknown> | undefined,
  limit: number,
): Promise<{ entries: WebhookIndexEntry[]; next?: Record<string, unknown> }> {
  const out = await documentClient.send(
    new QueryCommand({
      TableName: tableName('deliveryHistory'),
      IndexName: HISTORY_INDEXES.webhook.name,
      KeyConditionExpression: 'lw = :p AND id BETWEEN :min AND :max',
      ExpressionAttributeValues: {
        ':p': webhookListingKey(webhookId, shard),
        ':min': range.minId,
        ':max': range.maxId,
      },
      Limit: limit,
      ExclusiveStartKey: start,
    }),
  );
  const entries = ((out.Items ?? []) as StoredIndexEntry[]).map(indexEntryOf);
  return { entries, ...(out.LastEvaluatedKey ? { next: out.LastEvaluatedKey } : {}) };
}

/**
 * Whether recover job `jobId` has recorded its re-send of the delivery (strongly consistent; the
 * delivery's records past its automatic attempts, a handful): how a re-send taken over from a
 * holder that died tells a POST that was recorded from one that may not have been.
 */
export async function resendRecorded(deliveryId: string, jobId: string): Promise<boolean> {
  const out = await documentClient.send(
    new QueryCommand({
      TableName: tableName('deliveryHistory'),
      KeyConditionExpression: 'deliveryId = :d AND seq >= :manual',
      FilterExpression: 'recoverJob = :job',
      ExpressionAttributeValues: { ':d': deliveryId, ':manual': AUTOMATIC_ATTEMPT_LIMIT, ':job': jobId },
      ProjectionExpression: 'seq',
      ConsistentRead: true,
    }),
  );
  return (out.Items ?? []).length > 0;
}

/**
 * The audience of the first index entry in each of the webhook's shard partitions: at most one
 * entry read per shard, however many records the webhook has (none when it has none).
 */
export async function webhookEntryAudiences(webhookId: number, shards: number): Promise<Set<string>> {
  const found = await Promise.all(
    Array.from({ length: shards }, async (_, shard) => {
      const out = await documentClient.send(
        new QueryCommand({
          TableName: tableName('deliveryHistory'),
          IndexName: HISTORY_INDEXES.webhook.name,
          KeyConditionExpression: 'lw = :p',
          ExpressionAttributeValues: { ':p': webhookListingKey(webhookId, shard) },
          ProjectionExpression: 'audience',
          Limit: 1,
        }),
      );
      return (out.Items?.[0] as { audience?: string } | undefined)?.audience;
    }),
  );
  return new Set(found.filter((audience): audience is string => audience !== undefined));
}

/** Every record of a delivery (automatic attempts, manual retries, re-sends), strongly consistent. */
export async function deliveryRecords(deliveryId: string): Promise<DeliveryRecordEntry[]> {
  const entries = await queryDelivery<StoredIndexEntry & { recoverJob?: string }>(
    deliveryId,
    'deliveryId, seq, id, statusCode, recoverJob',
  );
  return entries.map((entry) => ({
    ...indexEntryOf(entry),
    ...(entry.recoverJob !== undefined ? { recoverJob: entry.recoverJob } : {}),
  }));
}

/** Every live record of a delivery, whole (the history's `deliveryId` filter): one partition. */
export async function deliveryItems(deliveryId: string): Promise<StoredHistoryRecord[]> {
  const items = await queryDelivery<StoredHistoryRecord>(deliveryId);
  return items.filter((item) => live(item) !== undefined);
}

function queryDelivery<T>(deliveryId: string, projection?: string): Promise<T[]> {
  return queryAll<T>({
    TableName: tableName('deliveryHistory'),
    KeyConditionExpression: 'deliveryId = :d',
    ExpressionAttributeValues: { ':d': deliveryId },
    ...(projection ? { ProjectionExpression: projection } : {}),
    ConsistentRead: true,
  });
}
