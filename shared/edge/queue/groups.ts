/**
 * How a batch's records run (ADR 0014). Records of a standard queue, and different message groups
 * of a FIFO queue, run side by side: one slow message holds up nothing else. The records of one
 * FIFO group run one after another in the batch's order and stop at the group's first failure;
 * the rest of that group is `held` (not run), so the queue gives it back in order after its head.
 */
import type { SQSRecord } from 'aws-lambda';
import type { RecordResult } from './middlewares';

/** Runs every record of the batch by its group; the results come in the records' order. */
export async function runByGroup(
  records: readonly SQSRecord[],
  run: (record: SQSRecord) => Promise<RecordResult>,
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
      for (const record of lane) {
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
