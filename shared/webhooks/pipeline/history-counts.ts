/**
 * The history counters, kept off the delivery path (ADR 0006): the deliveryHistory stream's
 * consumer adds each batch's new records to their per-day counters, every counter once per
 * group of up to 99 counters, in one transaction with the group's idempotency marker.
 *
 * Exactly once: a group's marker is keyed by its first stream record and says through which
 * sequence number the group counted. A batch delivered again (an invocation that failed or timed
 * out after some groups: Lambda retries the same batch from its start) meets the markers, skips
 * what they cover and carries on from there, so no record is counted twice and none is lost. A
 * group that fails is reported as the batch item failure, so the stream resumes at a group's
 * first record — never inside a counted group, where no marker would be found.
 */
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { describeError, logger } from '../../observability/logger';
import { applyCountGroup, type CountGroup, MAX_COUNTERS_PER_GROUP } from '../store/history';
import { dayOf, ID_SLOTS } from '../store/history-keys';

interface Counted {
  eventId: string;
  sequence: string;
  keys: string[];
  expiresAt: number;
}

/** The counters a new record adds 1 to, from its stream image; undefined for anything else. */
export function countedRecord(record: DynamoDBRecord): Counted | undefined {
  const image = record.dynamodb?.NewImage;
  const sequence = record.dynamodb?.SequenceNumber;
  if (record.eventName !== 'INSERT' || !image || !sequence || !record.eventID) return undefined;
  const la = image.la?.S;
  const lt = image.lt?.S;
  const id = Number(image.id?.N);
  const expiresAt = Number(image.expiresAt?.N);
  if (!la || !lt || !Number.isSafeInteger(id) || !Number.isFinite(expiresAt)) return undefined;
  const day = dayOf(Math.floor(id / ID_SLOTS));
  // A listing key without its shard suffix, plus the day, is the counter.
  const counter = (key: string) => `${key.slice(0, key.lastIndexOf('|'))}|${day}`;
  return { eventId: record.eventID, sequence, keys: [counter(la), counter(lt)], expiresAt };
}

/** The group that starts at `from`: as many records as fit MAX_COUNTERS_PER_GROUP counters. */
export function groupFrom(records: readonly Counted[], from: number): { group: CountGroup; end: number } {
  const deltas = new Map<string, { n: number; expiresAt: number }>();
  let end = from;
  for (; end < records.length; end++) {
    const record = records[end] as Counted;
    const fresh = record.keys.filter((k) => !deltas.has(k)).length;
    if (end > from && deltas.size + fresh > MAX_COUNTERS_PER_GROUP) break;
    for (const key of record.keys) {
      const current = deltas.get(key);
      deltas.set(key, {
        n: (current?.n ?? 0) + 1,
        expiresAt: Math.max(current?.expiresAt ?? 0, record.expiresAt),
      });
    }
  }
  const first = records[from] as Counted;
  const last = records[end - 1] as Counted;
  return { group: { marker: first.eventId, through: last.sequence, deltas }, end };
}

export async function countHistoryRecords(event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> {
  const records = event.Records.map(countedRecord).filter((r): r is Counted => r !== undefined);
  let at = 0;
  while (at < records.length) {
    const { group, end } = groupFrom(records, at);
    try {
      const result = await applyCountGroup(group);
      if ('applied' in result) {
        at = end;
        continue;
      }
      // Counted by an earlier delivery of this batch: skip what its marker covers.
      const through = BigInt(result.through);
      let next = at + 1;
      while (next < records.length && BigInt((records[next] as Counted).sequence) <= through) next++;
      at = next;
    } catch (error) {
      const failed = records[at] as Counted;
      logger.error('history counts: a group failed; the stream resumes from its first record', {
        sequence: failed.sequence,
        records: end - at,
        ...describeError(error),
      });
      return { batchItemFailures: [{ itemIdentifier: failed.sequence }] };
    }
  }
  return { batchItemFailures: [] };
}
