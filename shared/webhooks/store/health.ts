/**
 * DynamoDB access for a webhook's health counters (key layout and figures: ../health-counters.ts):
 * the stream consumer's raise of the newest attempt and success, fan-out's filter error counts,
 * the counters a health read needs, and the durations of the newest attempts for the latency.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../store/clients';
import { batchGetAll } from '../../store/read';
import { tableName } from '../../store/tables';
import { conditionalUpdate } from '../../store/write';
import { historyRetentionDays, historyWriteShards } from '../config';
import { filterErrorAdd, healthKeys, webhookLatestKey } from '../health-counters';
import { recordsByKey } from './history';
import { expiresAtFor, firstIdAt, liveWindow, webhookPartitions } from './history-keys';
import { mergedListing } from './history-listing';

/** Raises the webhook's newest attempt (`la`) or success (`ls`) id to `id` if it is newer. */
export async function raiseLatestAttempt(
  webhookId: number,
  attr: 'la' | 'ls',
  id: number,
  expiresAt: number,
): Promise<void> {
  await conditionalUpdate({
    TableName: tableName('deliveryCounts'),
    Key: { key: webhookLatestKey(webhookId) },
    UpdateExpression: 'SET #id = :id, expiresAt = :exp',
    ConditionExpression: 'attribute_not_exists(#id) OR #id < :id',
    ExpressionAttributeNames: { '#id': attr },
    ExpressionAttributeValues: { ':id': id, ':exp': expiresAt },
  });
}

/**
 * Adds filter evaluation errors (count per webhook) to the webhooks' hourly counters at `now`:
 * one UpdateItem per webhook with errors, and none at all when there are none.
 */
export async function addFilterErrors(errors: ReadonlyMap<number, number>, now: number): Promise<void> {
  const expiresAt = expiresAtFor(now, historyRetentionDays());
  await Promise.all(
    [...errors].map(([webhookId, count]) => {
      const { key, attr } = filterErrorAdd(webhookId, now);
      return documentClient.send(
        new UpdateCommand({
          TableName: tableName('deliveryCounts'),
          Key: { key },
          UpdateExpression: 'ADD #n :n SET expiresAt = if_not_exists(expiresAt, :exp)',
          ExpressionAttributeNames: { '#n': attr },
          ExpressionAttributeValues: { ':n': count, ':exp': expiresAt },
        }),
      );
    }),
  );
}

/** The counts-table items the health of these webhooks is read from, by key (one BatchGet per 33 webhooks). */
export async function healthItems(
  webhookIds: readonly number[],
  now: number,
): Promise<Map<string, Record<string, unknown>>> {
  const keys = [...new Set(webhookIds.flatMap((id) => healthKeys(id, now)))];
  const items = await batchGetAll<Record<string, unknown>>(
    tableName('deliveryCounts'),
    keys.map((key) => ({ key })),
  );
  return new Map(items.map((item) => [String(item.key), item]));
}

/**
 * The durations of the webhook's newest attempts since `fromMs` that made a request, at most
 * `cap`: the newest `cap` entries of its index (skipped attempts, status 0, filtered out there),
 * then those records by key (BatchGet), so a read costs `cap` records at most however busy the
 * webhook is. Records written before durations were kept have none and are left out.
 */
export async function recentDurations(
  webhookId: number,
  fromMs: number,
  cap: number,
  now: number,
): Promise<number[]> {
  const { minId } = liveWindow(now, historyRetentionDays());
  const entries = await mergedListing(
    'webhook',
    webhookPartitions(webhookId, historyWriteShards()),
    { minId: Math.max(minId, firstIdAt(fromMs)), sent: true },
    false,
    cap,
  );
  const records = await recordsByKey(entries);
  return records.flatMap((r) => (typeof r.durationMs === 'number' && !r.skipped ? [r.durationMs] : []));
}
