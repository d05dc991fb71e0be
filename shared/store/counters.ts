import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from './clients';
import { tableName } from './tables';
import { conditionalUpdate } from './write';

/**
 * Allocates the next integer id of a low-volume sequence (users, integrations, webhooks) with
 * one atomic ADD. High-volume records (history) must not use this: one hot item would cap
 * their write rate.
 */
export async function nextId(sequence: string): Promise<number> {
  const out = await documentClient.send(
    new UpdateCommand({
      TableName: tableName('counters'),
      Key: { name: sequence },
      UpdateExpression: 'ADD #v :one',
      ExpressionAttributeNames: { '#v': 'value' },
      ExpressionAttributeValues: { ':one': 1 },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  const value = out.Attributes?.value;
  if (typeof value !== 'number') throw new Error(`counter ${sequence} returned no value`);
  return value;
}

/**
 * Counts one use of `name` in the fixed window that contains `now` (a counter item per window,
 * expiring with it) unless the window already holds `limit` uses. Atomic however many
 * functions race: a conditional ADD. Answers whether the use was counted and when the window
 * ends.
 */
export async function countInWindow(
  name: string,
  limit: number,
  windowSeconds: number,
  now = Date.now(),
): Promise<{ counted: boolean; windowEndsAt: number }> {
  const windowStart = Math.floor(now / 1000 / windowSeconds) * windowSeconds;
  const windowEndsAt = (windowStart + windowSeconds) * 1000;
  const counted = await conditionalUpdate({
    TableName: tableName('counters'),
    Key: { name: `${name}:${windowStart}` },
    UpdateExpression: 'ADD #v :one SET expiresAt = :expires',
    ConditionExpression: 'attribute_not_exists(#v) OR #v < :limit',
    ExpressionAttributeNames: { '#v': 'value' },
    // Kept a minute past the window, then removed by the table's TTL.
    ExpressionAttributeValues: { ':one': 1, ':limit': limit, ':expires': windowStart + windowSeconds + 60 },
  });
  return { counted, windowEndsAt };
}
