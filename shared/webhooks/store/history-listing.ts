/**
 * Listing the delivery history: one page's keys merged over the shard partitions of the selected
 * audiences (read lazily, in id order, about `pageSize` keys plus a few per partition), and the
 * COUNT queries over the same partitions. The records themselves are read by key (history.ts).
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../store/clients';
import { tableName } from '../../store/tables';
import {
  HISTORY_INDEXES,
  type HistoryKey,
  historyKeyOf,
  type IndexKind,
  type StoredKey,
} from './history-keys';

/** A listing index's entry: the record's key and id. */
export interface ListingEntry extends HistoryKey {
  id: number;
  /** On the webhook index, which projects it. */
  statusCode?: number;
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
    const items = (out.Items ?? []) as (StoredKey & Omit<ListingEntry, keyof HistoryKey>)[];
    this.entries.push(
      ...items.map(({ id, deliveryId, seq, statusCode }) => ({
        id,
        ...historyKeyOf({ deliveryId, seq }),
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
