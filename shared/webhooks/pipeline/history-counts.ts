/**
 * The history counters, kept off the delivery path (ADR 0006): the deliveryHistory stream's
 * consumer adds each batch's new records to their per-day counters and their webhooks' hourly
 * health counters (ADR 0007, ../health-counters.ts) and failure streaks, every counter item once
 * per group of up to 99, in one transaction with the group's idempotency marker; and raises each
 * webhook's newest attempt and success (a maximum, idempotent by itself). A recover job's re-sends are counted
 * here too, on the job (`resent`, from the records that carry the job: ADR 0014), so the job's
 * count follows its records exactly, however often a re-send's message came.
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
import {
  hourlyAdds,
  STREAK_ATTR,
  type StreakChange,
  streakChange,
  webhookLatestKey,
} from '../health-counters';
import { succeeded } from '../outcome-class';
import { applyCountGroup, type CountGroup, MAX_COUNTERS_PER_GROUP } from '../store/delivery-counts';
import { raiseLatestAttempt } from '../store/health';
import { dayOf, ID_SLOTS } from '../store/history-keys';

/** One counter a record adds 1 to: an item of the counts table and its attribute. */
interface CounterAdd {
  key: string;
  attr: string;
}

interface Counted {
  eventId: string;
  sequence: string;
  adds: CounterAdd[];
  expiresAt: number;
  /** The attempt of a webhook this record is (its health: ../health-counters.ts). */
  attempt?: { webhookId: number; id: number; ok: boolean };
  /** The recover job whose re-send this record is. */
  resentBy?: string;
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
  const counter = (key: string) => ({ key: `${key.slice(0, key.lastIndexOf('|'))}|${day}`, attr: 'n' });
  const counted: Counted = { eventId: record.eventID, sequence, adds: [counter(la), counter(lt)], expiresAt };
  const webhookId = Number(image.webhooksId?.N);
  const statusCode = Number(image.statusCode?.N);
  if (Number.isSafeInteger(webhookId) && Number.isInteger(statusCode)) {
    counted.adds.push(...hourlyAdds(webhookId, id, statusCode));
    counted.attempt = { webhookId, id, ok: succeeded(statusCode) };
  }
  const job = image.recoverJob?.S;
  if (job) counted.resentBy = job;
  return counted;
}

/**
 * The group that starts at `from`: as many records as fit MAX_COUNTERS_PER_GROUP counter items
 * (a recover job counted on counts as one, a webhook's streak on its `wh|<id>` item too). Each
 * webhook's attempts in the group, in stream order, set or add to its failure streak.
 */
export function groupFrom(records: readonly Counted[], from: number): { group: CountGroup; end: number } {
  const deltas = new Map<
    string,
    { adds: Map<string, number>; sets?: Map<string, number>; expiresAt: number }
  >();
  const resent = new Map<string, number>();
  const streaks = new Map<number, { change: StreakChange; expiresAt: number }>();
  let end = from;
  for (; end < records.length; end++) {
    const record = records[end] as Counted;
    const fresh =
      new Set(record.adds.map((a) => a.key).filter((k) => !deltas.has(k))).size +
      (record.attempt !== undefined && !streaks.has(record.attempt.webhookId) ? 1 : 0) +
      (record.resentBy !== undefined && !resent.has(record.resentBy) ? 1 : 0);
    if (end > from && deltas.size + streaks.size + resent.size + fresh > MAX_COUNTERS_PER_GROUP) break;
    for (const { key, attr } of record.adds) {
      const current = deltas.get(key) ?? { adds: new Map<string, number>(), expiresAt: 0 };
      current.adds.set(attr, (current.adds.get(attr) ?? 0) + 1);
      current.expiresAt = Math.max(current.expiresAt, record.expiresAt);
      deltas.set(key, current);
    }
    if (record.attempt) {
      const before = streaks.get(record.attempt.webhookId);
      streaks.set(record.attempt.webhookId, {
        change: streakChange(before?.change, record.attempt.ok),
        expiresAt: Math.max(before?.expiresAt ?? 0, record.expiresAt),
      });
    }
    if (record.resentBy !== undefined) resent.set(record.resentBy, (resent.get(record.resentBy) ?? 0) + 1);
  }
  for (const [webhookId, { change, expiresAt }] of streaks) {
    const values = new Map([[STREAK_ATTR, change.n]]);
    deltas.set(
      webhookLatestKey(webhookId),
      change.op === 'set' ? { adds: new Map(), sets: values, expiresAt } : { adds: values, expiresAt },
    );
  }
  const first = records[from] as Counted;
  const last = records[end - 1] as Counted;
  return { group: { marker: first.eventId, through: last.sequence, deltas, resent }, end };
}

/**
 * Raises each webhook's newest attempt and newest success to the batch's (a maximum, so a batch
 * delivered again changes nothing): one conditional update per webhook and kind in the batch.
 */
async function raiseLatest(records: readonly Counted[]): Promise<void> {
  const latest = new Map<number, { la: number; ls?: number; expiresAt: number }>();
  for (const { attempt, expiresAt } of records) {
    if (!attempt) continue;
    const current = latest.get(attempt.webhookId) ?? { la: 0, expiresAt: 0 };
    current.la = Math.max(current.la, attempt.id);
    if (attempt.ok) current.ls = Math.max(current.ls ?? 0, attempt.id);
    current.expiresAt = Math.max(current.expiresAt, expiresAt);
    latest.set(attempt.webhookId, current);
  }
  const raises = [...latest].flatMap(([webhookId, { la, ls, expiresAt }]) => [
    () => raiseLatestAttempt(webhookId, 'la', la, expiresAt),
    ...(ls !== undefined ? [() => raiseLatestAttempt(webhookId, 'ls', ls, expiresAt)] : []),
  ]);
  const queue = [...raises];
  await Promise.all(
    Array.from({ length: Math.min(8, queue.length) }, async () => {
      for (let raise = queue.shift(); raise !== undefined; raise = queue.shift()) await raise();
    }),
  );
}

export async function countHistoryRecords(event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> {
  const records = event.Records.map(countedRecord).filter((r): r is Counted => r !== undefined);
  try {
    await raiseLatest(records);
  } catch (error) {
    const first = records[0] as Counted;
    logger.error('history counts: the newest attempts were not raised; the batch comes again', {
      sequence: first.sequence,
      ...describeError(error),
    });
    return { batchItemFailures: [{ itemIdentifier: first.sequence }] };
  }
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
