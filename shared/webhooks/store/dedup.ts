/**
 * Markers in the shared idempotency table that make the pipeline safe against SQS's
 * at-least-once delivery (ADR 0012):
 * - `fanout#<notification>`: the deliveries of a notification that took several steps were all
 *   enqueued (written by its last step); a redelivered notification is skipped. A notification
 *   fanned out in one step has none: its step's done mark without `next` says the same.
 * - `fanout#<notification>#<key>#<after>`: one fan-out step, taken under a lease while it runs
 *   (`running`, until `leaseUntil`) and marked done once its deliveries are sent, with where its
 *   follow-up starts (`next`) when it continues: the queue-consumer edge sends the follow-up
 *   after the mark, so a copy of the step that finds the mark sends it again.
 *   A second copy of the step (a producer's retry, an SQS duplicate) finds the lease and comes
 *   back later instead of enqueueing the same deliveries beside it; a step whose holder died
 *   (the lease ran out) is taken over.
 * - `resend#<job>#<deliveryId>`: a recover job's re-send, taken as a lease (`running`, with its
 *   holder) before the POST and made final (`marked`) once its record is written (ADR 0014): a
 *   holder that dies leaves the lease to run out, and the redelivered re-send takes it over. A throttled re-send that is sent again for a later slot
 *   gives its lease up first; the new message takes it again.
 *
 * Automatic delivery attempts have no marker (ADR 0012): the delivery's own records, read
 * strongly consistent before the POST, drop a message whose attempt was made.
 */
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../store/clients';
import { tableName } from '../../store/tables';
import { conditionalPut, conditionalReplace, putIfAbsent } from '../../store/write';

const DAY_SECONDS = 86_400;

/** A marker's TTL attribute: epoch seconds `ttlDays` after `now` (epoch ms). */
function expiresAfter(ttlDays: number, now = Date.now()): number {
  return Math.floor(now / 1000) + ttlDays * DAY_SECONDS;
}

/** True when this call created the marker, false when it already existed. */
export function markOnce(id: string, ttlDays: number): Promise<boolean> {
  return putIfAbsent(
    tableName('idempotency'),
    { id, status: 'marked', expiration: expiresAfter(ttlDays) },
    'id',
  );
}

export async function exists(id: string): Promise<boolean> {
  const out = await documentClient.send(
    new GetCommand({ TableName: tableName('idempotency'), Key: { id }, ProjectionExpression: 'id' }),
  );
  return out.Item !== undefined;
}

/** Removes a marker or gives a lease up (a throttled re-send sent again for its slot). */
export async function unmark(id: string): Promise<void> {
  await documentClient.send(new DeleteCommand({ TableName: tableName('idempotency'), Key: { id } }));
}

/** Where a fan-out step's follow-up starts, and the deliveries sent before it. */
export interface StepContinues {
  key: number;
  after?: number;
  sent: number;
}

/**
 * What taking a step found: `taken` (this call holds the lease; `takenOver` when an earlier
 * holder's lease ran out, so some of the step's work may have been done), `done` (with where its
 * follow-up starts, if it continues), or `running` (another holder's lease lasts until
 * `leaseUntil`, epoch ms).
 */
export type StepClaim =
  | { state: 'taken'; takenOver: boolean }
  | { state: 'done'; next?: StepContinues }
  | { state: 'running'; leaseUntil: number };

/**
 * Takes step `id` for `leaseMs` unless it is done or another holder's lease is still running:
 * one conditional PutItem, and one strongly consistent read only when it is refused. `holder`
 * names the taker, for a lease that only its holder may make final (`finishLease`).
 */
export async function takeStep(
  id: string,
  leaseMs: number,
  ttlDays: number,
  now = Date.now(),
  holder?: string,
): Promise<StepClaim> {
  const table = tableName('idempotency');
  const taken = await conditionalReplace({
    TableName: table,
    Item: {
      id,
      status: 'running',
      leaseUntil: now + leaseMs,
      expiration: expiresAfter(ttlDays, now),
      ...(holder !== undefined ? { holder } : {}),
    },
    ConditionExpression: 'attribute_not_exists(id) OR (#status = :running AND leaseUntil < :now)',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':running': 'running', ':now': now },
  });
  if (taken.written) return { state: 'taken', takenOver: taken.old !== undefined };
  const out = await documentClient.send(
    new GetCommand({ TableName: table, Key: { id }, ConsistentRead: true }),
  );
  const item = out.Item as { status?: string; leaseUntil?: number; next?: StepContinues } | undefined;
  // Running, or gone in between (its marker expired): the message comes back and tries again.
  if (item === undefined || item.status === 'running')
    return { state: 'running', leaseUntil: item?.leaseUntil ?? now };
  return item.next ? { state: 'done', next: item.next } : { state: 'done' };
}

/**
 * Marks a taken step done (whatever its lease says): a later copy of it is skipped, or, when the
 * step continues (`next`), sends the follow-up again.
 */
export async function finishStep(id: string, ttlDays: number, next?: StepContinues): Promise<void> {
  await documentClient.send(
    new PutCommand({
      TableName: tableName('idempotency'),
      Item: { id, status: 'marked', expiration: expiresAfter(ttlDays), ...(next ? { next } : {}) },
    }),
  );
}

/**
 * Makes `holder`'s lease on `id` final (done), unless another holder took it over meanwhile
 * (then false: the new holder finishes it).
 */
export function finishLease(id: string, holder: string, ttlDays: number): Promise<boolean> {
  return conditionalPut({
    TableName: tableName('idempotency'),
    Item: { id, status: 'marked', expiration: expiresAfter(ttlDays) },
    ConditionExpression: '#status = :running AND holder = :holder',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':running': 'running', ':holder': holder },
  });
}
