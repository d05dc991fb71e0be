/**
 * The history's counters (the `deliveryCounts` table): sums for a page's `count` and health, and
 * the stream consumer's one transaction per group of a batch, with its idempotency marker
 * (pipeline/history-counts.ts builds the groups; ADR 0006).
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../store/clients';
import { batchGetAll } from '../../store/read';
import { tableName } from '../../store/tables';
import { cancellationCodes, isTransactionCancelled, transactWrite } from '../../store/write';

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
  /** Per counter item, what each of its attributes goes up by, or is set to (an attribute is in one of the two). */
  deltas: ReadonlyMap<
    string,
    { adds: ReadonlyMap<string, number>; sets?: ReadonlyMap<string, number>; expiresAt: number }
  >;
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
      ...[...group.deltas].map(([key, { adds, sets, expiresAt }]) => {
        const added = [...adds];
        const set = [...(sets ?? [])];
        const addClause = added.length > 0 ? `ADD ${added.map((_, i) => `#a${i} :a${i}`).join(', ')} ` : '';
        return {
          Update: {
            TableName: table,
            Key: { key },
            UpdateExpression: `${addClause}SET ${set.map((_, i) => `#s${i} = :s${i}, `).join('')}expiresAt = if_not_exists(expiresAt, :exp)`,
            ExpressionAttributeNames: Object.fromEntries([
              ...added.map(([attr], i) => [`#a${i}`, attr]),
              ...set.map(([attr], i) => [`#s${i}`, attr]),
            ]),
            ExpressionAttributeValues: {
              ...Object.fromEntries(added.map(([, n], i) => [`:a${i}`, n])),
              ...Object.fromEntries(set.map(([, n], i) => [`:s${i}`, n])),
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
