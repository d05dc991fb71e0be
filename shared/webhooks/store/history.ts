/**
 * DynamoDB access for the delivery history (the key model is history-keys.ts; who may see what
 * is api/history.ts): the one conditional PutItem per record, a delivery's attempts, listing
 * pages merged over the shard partitions, records by key, and the counters the stream
 * consumer keeps (one transaction per group of a batch, with its idempotency marker).
 *
 * Over 400 lines: every read and write of the history table and its indexes in one repository,
 * so the key model (history-keys.ts) has one user.
 */
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../store/clients';
import { batchGetAll, queryAll } from '../../store/read';
import { tableName } from '../../store/tables';
import { cancellationCodes, conditionalPut, isTransactionCancelled, transactWrite } from '../../store/write';
import { historyRetentionDays, historyWriteShards } from '../config';
import type { DeliveryPayload, HistoryRecord } from '../model';
import { nextHistoryId } from './history-ids';
import {
  AUTOMATIC_SEQ_LIMIT,
  audienceOf,
  createdAtOf,
  expiresAtFor,
  HISTORY_INDEXES,
  ID_SLOTS,
  type IndexKind,
  listingKeys,
  OUTCOMES,
  outcomeOf,
  type StoredHistoryRecord,
  type StoredResponse,
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
    deliveryId: input.deliveryId,
    // An automatic attempt is keyed by its number; a manual retry and a twin POST by their id.
    seq: retryOf === undefined && !twin ? input.attempt : id,
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

export interface RecordedAttempt {
  seq: number;
  statusCode: number;
}

/** The automatic attempts recorded for a delivery (a strongly consistent read: 1 RCU for most). */
export async function recordedAttempts(deliveryId: string): Promise<RecordedAttempt[]> {
  const out = await documentClient.send(
    new QueryCommand({
      TableName: tableName('deliveryHistory'),
      KeyConditionExpression: 'deliveryId = :d AND seq < :manual',
      ExpressionAttributeValues: { ':d': deliveryId, ':manual': AUTOMATIC_SEQ_LIMIT },
      ProjectionExpression: 'seq, statusCode',
      ConsistentRead: true,
    }),
  );
  return (out.Items ?? []) as RecordedAttempt[];
}

export interface HistoryKey {
  deliveryId: string;
  seq: number;
}

interface ListingEntry extends HistoryKey {
  id: number;
  /** On the webhook index, which projects it. */
  statusCode?: number;
}

function live(item: StoredHistoryRecord | undefined): StoredHistoryRecord | undefined {
  return item && item.expiresAt * 1000 > Date.now() ? item : undefined;
}

export async function getHistoryItem(key: HistoryKey): Promise<StoredHistoryRecord | undefined> {
  const out = await documentClient.send(
    new GetCommand({ TableName: tableName('deliveryHistory'), Key: key }),
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
      return (out.Items ?? [])[0] as ListingEntry | undefined;
    }),
  );
  const key = found.find((entry) => entry !== undefined);
  return key ? getHistoryItem({ deliveryId: key.deliveryId, seq: key.seq }) : undefined;
}

/**
 * What a listing reads besides the partitions: the id range (time window) and, on the webhook
 * index, conditions on its projected fields (visibility, type, outcome).
 */
export interface ListingRange {
  minId: number;
  maxId?: number;
  /** Only entries whose audience is one of these (webhook index). */
  audiences?: readonly string[];
  notificationType?: string;
  outcome?: 's' | 'f';
  /** Only attempts that made a request (not the skipped ones, status 0) (webhook index). */
  sent?: boolean;
}

/** The key condition and filter of a listing query on `partition`. */
function listingQuery(index: IndexKind, partition: string, range: ListingRange) {
  const { name, attribute } = HISTORY_INDEXES[index];
  const names: Record<string, string> = { '#p': attribute };
  const values: Record<string, unknown> = { ':p': partition, ':min': range.minId };
  let key = '#p = :p AND id >= :min';
  if (range.maxId !== undefined) {
    key = '#p = :p AND id BETWEEN :min AND :max';
    values[':max'] = range.maxId;
  }
  const filters: string[] = [];
  if (range.audiences) {
    names['#aud'] = 'audience';
    filters.push(`#aud IN (${range.audiences.map((_, i) => `:aud${i}`).join(', ')})`);
    range.audiences.forEach((audience, i) => {
      values[`:aud${i}`] = audience;
    });
  }
  if (range.notificationType !== undefined) {
    filters.push('notificationType = :type');
    values[':type'] = range.notificationType;
  }
  if (range.sent) {
    filters.push('statusCode <> :skipped');
    values[':skipped'] = 0;
  }
  if (range.outcome !== undefined) {
    filters.push(`${range.outcome === 'f' ? 'NOT ' : ''}(statusCode BETWEEN :ok AND :okMax)`);
    values[':ok'] = 200;
    values[':okMax'] = 299;
  }
  return {
    TableName: tableName('deliveryHistory'),
    IndexName: name,
    KeyConditionExpression: key,
    ...(filters.length > 0 ? { FilterExpression: filters.join(' AND ') } : {}),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
}

/** One listing partition read in order, a page of keys at a time. */
class PartitionReader {
  readonly entries: ListingEntry[] = [];
  done = false;
  private start: Record<string, unknown> | undefined;
  private chunk = 0;

  constructor(
    private readonly index: IndexKind,
    private readonly partition: string,
    private readonly range: ListingRange,
    private readonly ascending: boolean,
  ) {}

  get last(): ListingEntry | undefined {
    return this.entries.at(-1);
  }

  /** Reads about `want` more keys (at least twice the previous read, so a busy partition needs few calls). */
  async read(want: number): Promise<void> {
    const limit = Math.max(want, this.chunk * 2, 1);
    this.chunk = limit;
    const out = await documentClient.send(
      new QueryCommand({
        ...listingQuery(this.index, this.partition, this.range),
        ScanIndexForward: this.ascending,
        Limit: limit,
        ExclusiveStartKey: this.start,
      }),
    );
    const items = (out.Items ?? []) as ListingEntry[];
    this.entries.push(
      ...items.map(({ id, deliveryId, seq, statusCode }) => ({
        id,
        deliveryId,
        seq,
        ...(statusCode !== undefined ? { statusCode } : {}),
      })),
    );
    this.start = out.LastEvaluatedKey;
    // With a filter a short page does not mean the partition is read to its end.
    this.done = !out.LastEvaluatedKey;
  }
}

/**
 * The first `need` listing entries (in id order, ascending or not) of the union of `partitions`:
 * each partition is read lazily, and only while it could still hold one of the first `need`, so
 * a page reads about `need` keys plus a few per partition, independent of the number of records.
 */
export async function mergedListing(
  index: IndexKind,
  partitions: readonly string[],
  range: number | ListingRange,
  ascending: boolean,
  need: number,
): Promise<ListingEntry[]> {
  if (need === 0 || partitions.length === 0) return [];
  const bounds = typeof range === 'number' ? { minId: range } : range;
  const before = (a: ListingEntry, b: ListingEntry) => (ascending ? a.id < b.id : a.id > b.id);
  const readers = partitions.map((p) => new PartitionReader(index, p, bounds, ascending));
  await Promise.all(readers.map((r) => r.read(Math.ceil(need / readers.length) + 1)));
  for (;;) {
    const merged = readers.flatMap((r) => r.entries).sort((a, b) => (before(a, b) ? -1 : 1));
    const top = merged.slice(0, need);
    const cutoff = top.length === need ? top[need - 1] : undefined;
    // A partition still matters while its next key could come before the page's last entry.
    const open = readers.filter((r) => {
      const last = r.last;
      return !r.done && (cutoff === undefined || last === undefined || !before(cutoff, last));
    });
    if (open.length === 0) return top;
    await Promise.all(open.map((r) => r.read(Math.ceil(need / readers.length) + 1)));
  }
}

/**
 * How many entries of `partitions` fall in the range (after its filters): COUNT queries, whose
 * cost is the matching index entries' size (about 1 RCU per 4 KB of keys), not the records'.
 * With `cap`, at most that many (each partition reads at most `cap` entries a page).
 */
export async function countRange(
  index: IndexKind,
  partitions: readonly string[],
  range: ListingRange,
  cap = Number.POSITIVE_INFINITY,
): Promise<number> {
  const counts = await Promise.all(
    partitions.map(async (partition) => {
      let total = 0;
      let start: Record<string, unknown> | undefined;
      do {
        const out = await documentClient.send(
          new QueryCommand({
            ...listingQuery(index, partition, range),
            Select: 'COUNT',
            ExclusiveStartKey: start,
            ...(Number.isFinite(cap) ? { Limit: cap - total } : {}),
          }),
        );
        total += out.Count ?? 0;
        start = out.LastEvaluatedKey;
      } while (start && total < cap);
      return total;
    }),
  );
  return Math.min(
    cap,
    counts.reduce((a, b) => a + b, 0),
  );
}

/** The records with these keys, in the same order (expired ones TTL has removed are left out). */
export async function recordsByKey(keys: readonly HistoryKey[]): Promise<StoredHistoryRecord[]> {
  const items = await batchGetAll<StoredHistoryRecord>(
    tableName('deliveryHistory'),
    keys.map(({ deliveryId, seq }) => ({ deliveryId, seq })),
  );
  return items.filter((item) => live(item) !== undefined);
}

/** The sum of these counters. */
export async function sumCounters(keys: readonly string[]): Promise<number> {
  const counters = await batchGetAll<{ n?: number }>(
    tableName('deliveryCounts'),
    keys.map((key) => ({ key })),
  );
  return counters.reduce((total, counter) => total + Number(counter.n ?? 0), 0);
}

/** Counter deltas of one group of stream records. */
export interface CountGroup {
  /** The idempotency marker: the group's first stream record. */
  marker: string;
  /** The group's last stream sequence number (what the marker covers). */
  through: string;
  /** Per counter item, what each of its attributes goes up by. */
  deltas: ReadonlyMap<string, { adds: ReadonlyMap<string, number>; expiresAt: number }>;
  /** Per recover job, the re-sends recorded (its `resent`). */
  resent?: ReadonlyMap<string, number>;
}

/** Markers outlive a stream record's 24 hours, so a batch retried that late still finds its own. */
const MARKER_TTL_SECONDS = 2 * 86_400;
/** TransactWriteItems takes at most 100 items: the marker and 99 counters (a job's count is one). */
export const MAX_COUNTERS_PER_GROUP = 99;

/**
 * Adds one group's deltas (and its re-sends to their jobs) and puts its marker in one
 * transaction: `applied`, or, when the marker exists (the group was applied by an earlier
 * delivery of the batch), the sequence number it covers. A job is not required to exist (no
 * condition that could stop the group): one gone by its expiry would come back as a count only.
 */
export async function applyCountGroup(group: CountGroup): Promise<{ applied: true } | { through: string }> {
  const table = tableName('deliveryCounts');
  const markerKey = `mark#${group.marker}`;
  try {
    await transactWrite([
      {
        Put: {
          TableName: table,
          Item: {
            key: markerKey,
            through: group.through,
            expiresAt: Math.floor(Date.now() / 1000) + MARKER_TTL_SECONDS,
          },
          ConditionExpression: 'attribute_not_exists(#k)',
          ExpressionAttributeNames: { '#k': 'key' },
        },
      },
      ...[...group.deltas].map(([key, { adds, expiresAt }]) => {
        const attrs = [...adds];
        return {
          Update: {
            TableName: table,
            Key: { key },
            UpdateExpression: `ADD ${attrs.map((_, i) => `#a${i} :a${i}`).join(', ')} SET expiresAt = if_not_exists(expiresAt, :exp)`,
            ExpressionAttributeNames: Object.fromEntries(attrs.map(([attr], i) => [`#a${i}`, attr])),
            ExpressionAttributeValues: {
              ...Object.fromEntries(attrs.map(([, n], i) => [`:a${i}`, n])),
              ':exp': expiresAt,
            },
          },
        };
      }),
      ...[...(group.resent ?? [])].map(([jobId, n]) => ({
        Update: {
          TableName: tableName('webhookJobs'),
          Key: { jobId },
          UpdateExpression: 'ADD resent :n',
          ExpressionAttributeValues: { ':n': n },
        },
      })),
    ]);
    return { applied: true };
  } catch (error) {
    if (!isTransactionCancelled(error) || cancellationCodes(error)[0] !== 'ConditionalCheckFailed')
      throw error;
    const out = await documentClient.send(
      new GetCommand({ TableName: table, Key: { key: markerKey }, ConsistentRead: true }),
    );
    return { through: String((out.Item as { through?: string } | undefined)?.through ?? group.through) };
  }
}

export interface WebhookIndexEntry extends HistoryKey {
  id: number;
  statusCode: number;
}

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
  const entries = ((out.Items ?? []) as WebhookIndexEntry[]).map(({ id, deliveryId, seq, statusCode }) => ({
    id,
    deliveryId,
    seq,
    statusCode,
  }));
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
      ExpressionAttributeValues: { ':d': deliveryId, ':manual': AUTOMATIC_SEQ_LIMIT, ':job': jobId },
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
export function deliveryRecords(deliveryId: string): Promise<WebhookIndexEntry[]> {
  return queryDelivery<WebhookIndexEntry>(deliveryId, 'deliveryId, seq, id, statusCode');
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
