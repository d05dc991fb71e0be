/**
 * The delivery clock of a throttled webhook: a generic cell rate algorithm (GCRA) whose state
 * is one number per webhook in the counters table (`throttle:<webhookId>`), the earliest time
 * (epoch ms) the next delivery may start. Each delivery takes the slot the clock shows (or now,
 * when the clock is behind) and moves the clock on by one interval (1000 / rate ms), with one
 * atomic conditional update: while the webhook is busy the first update always succeeds, so a
 * throttled delivery costs one write; after an idle spell a second update restarts the clock at
 * now. Slots are unique, so however many consumers race, no two deliveries share one interval.
 * Webhooks without a limit never touch this item.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../store/clients';
import { tableName } from '../../store/tables';
import { conditionalUpdate } from '../../store/write';

/** Kept past the longest a delivery can wait on its queue (14 days), then removed by TTL. */
const KEEP_SECONDS = 15 * 86_400;

function isConditionFailed(error: unknown): boolean {
  return (error as Error).name === 'ConditionalCheckFailedException';
}

/** Reserves the webhook's next delivery slot and answers its start time (epoch ms, ≥ `now`). */
export async function reserveDeliverySlot(
  webhookId: number,
  intervalMs: number,
  now = Date.now(),
): Promise<number> {
  const name = `throttle:${webhookId}`;
  const expiresAt = Math.ceil(now / 1000) + KEEP_SECONDS;
  for (let round = 0; round < 10; round++) {
    try {
      const out = await documentClient.send(
        new UpdateCommand({
          TableName: tableName('counters'),
          Key: { name },
          UpdateExpression: 'ADD #v :interval SET expiresAt = :expires',
          ConditionExpression: '#v >= :now',
          ExpressionAttributeNames: { '#v': 'value' },
          ExpressionAttributeValues: { ':interval': intervalMs, ':now': now, ':expires': expiresAt },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return Number(out.Attributes?.value) - intervalMs;
    } catch (error) {
      if (!isConditionFailed(error)) throw error;
    }
    // The clock is behind now (or was never started): restart it at now, unless a racing
    // delivery did so first (then take the next slot above).
    const restarted = await conditionalUpdate({
      TableName: tableName('counters'),
      Key: { name },
      UpdateExpression: 'SET #v = :next, expiresAt = :expires',
      ConditionExpression: 'attribute_not_exists(#v) OR #v < :now',
      ExpressionAttributeNames: { '#v': 'value' },
      ExpressionAttributeValues: { ':next': now + intervalMs, ':now': now, ':expires': expiresAt },
    });
    if (restarted) return now;
  }
  throw new Error(`could not reserve a delivery slot for webhook ${webhookId}`);
}
