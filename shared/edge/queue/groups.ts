/**
 * How a batch's records run (ADR 0014). Records of a standard queue, and different message groups
 * of a FIFO queue, run side by side: one slow message holds up nothing else. The records of one
 * FIFO group run one after another in the batch's order and stop at the group's first failure;
 * the rest of that group is `held` (not run), so the queue gives it back in order after its head.
 *
 * A group's next record starts only while its invocation has `reserveMs` left (a record's
 * longest run): a batch can hold ten messages of one backlogged key, and ten slow answers one
 * after another would outlast the invocation, which would give the whole batch back only after
 * its visibility timeout. Instead the rest of the group is given back at once, in order (ADR 0020).
 */
import type { SQSRecord } from 'aws-lambda';
import type { RecordResult } from './middlewares';

/** When a group's later records wait for the next invocation instead of starting now. */
export interface GroupDeadline {
  /** Milliseconds the invocation has left. */
  timeLeft(): number;
  /** Time a record needs at most: a later record of its group starts only with this much left. */
  reserveMs: number;
}

/** Runs every record of the batch by its group; the results come in the records' order. */
export async function runByGroup(
  records: readonly SQSRecord[],
  run: (record: SQSRecord) => Promise<RecordResult>,
  deadline?: GroupDeadline,
): Promise<RecordResult[]> {
  const lanes = new Map<string, SQSRecord[]>();
  records.forEach((record, i) => {
    const group = record.attributes.MessageGroupId;
    const lane = group === undefined ? `record ${i}` : `group ${group}`;
    lanes.set(lane, [...(lanes.get(lane) ?? []), record]);
  });
  const results = new Map<SQSRecord, RecordResult>();
  await Promise.all(
    [...lanes.values()].map(async (lane) => {
      let head: (RecordResult & { kind: 'retry' | 'failed' }) | undefined;
      for (const [i, record] of lane.entries()) {
        if (!head && i > 0 && deadline && deadline.timeLeft() < deadline.reserveMs)
          // Not run: given back at once (no delay), the group's order kept.
          head = {
            kind: 'retry',
            record,
            delaySeconds: 0,
            reason: 'the invocation ends before it could run',
          };
        if (head) {
          results.set(record, { kind: 'held', record, head });
          continue;
        }
        const result = await run(record);
        results.set(record, result);
        if (result.kind === 'retry' || result.kind === 'failed') head = result;
      }
    }),
  );
  return records.map((record) => results.get(record) as RecordResult);
}
