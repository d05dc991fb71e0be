/**
 * Markers in the shared idempotency table that make the pipeline safe against SQS's
 * at-least-once delivery:
 * - `fanout#<notification>`: the notification's deliveries were all enqueued; a redelivered
 *   notification is skipped.
 * - `attempt#<deliveryId>#<n>`: attempt n of a delivery was marked before its POST; a second
 *   message carrying the same delivery and attempt (a notification fanned out twice after a
 *   crash) is dropped, so no attempt is ever POSTed twice. A throttled attempt that is sent
 *   again for a later slot removes its marker first; the new message marks it again.
 */
import { DeleteCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../store/clients';
import { tableName } from '../../store/tables';
import { putIfAbsent } from '../../store/write';

const DAY_SECONDS = 86_400;

/** True when this call created the marker, false when it already existed. */
export function markOnce(id: string, ttlDays: number): Promise<boolean> {
  const expiration = Math.floor(Date.now() / 1000) + ttlDays * DAY_SECONDS;
  return putIfAbsent(tableName('idempotency'), { id, status: 'marked', expiration }, 'id');
}

export async function exists(id: string): Promise<boolean> {
  const out = await documentClient.send(
    new GetCommand({ TableName: tableName('idempotency'), Key: { id }, ProjectionExpression: 'id' }),
  );
  return out.Item !== undefined;
}

/** Removes a marker (a throttled attempt re-queued for its slot). */
export async function unmark(id: string): Promise<void> {
  await documentClient.send(new DeleteCommand({ TableName: tableName('idempotency'), Key: { id } }));
}
