/**
 * What the periodic checks keep: pages of the integrations a round checks, one check lease per
 * remote host, and the health notification a check recorded until it is sent.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../store/clients';
import { tableName } from '../../store/tables';
import { conditionalDelete, conditionalUpdate } from '../../store/write';
import type { IntegrationStatus } from '../lifecycle';
import type { IntegrationRecord } from '../model';

/**
 * One page of the ids of integrations a periodic check runs on, and where the next page starts.
 * Pages are read by separate invocations, so no function ever walks all integrations.
 */
export async function checkablePage(
  statuses: readonly IntegrationStatus[],
  cursor: Record<string, unknown> | undefined,
  limit: number,
): Promise<{ ids: number[]; next?: Record<string, unknown> }> {
  const out = await documentClient.send(
    new ScanCommand({
      TableName: tableName('integrations'),
      ProjectionExpression: 'id',
      FilterExpression: `#s IN (${statuses.map((_, i) => `:s${i}`).join(', ')})`,
      ExpressionAttributeNames: { '#s': 'status' },
      ExpressionAttributeValues: Object.fromEntries(statuses.map((s, i) => [`:s${i}`, s])),
      Limit: limit,
      ...(cursor ? { ExclusiveStartKey: cursor } : {}),
    }),
  );
  const ids = (out.Items ?? []).map((item) => Number(item.id)).filter(Number.isInteger);
  return out.LastEvaluatedKey ? { ids, next: out.LastEvaluatedKey } : { ids };
}

/**
 * Takes the host's check lease (one check per remote host at a time): false when another check
 * holds it. A lease left by a check that died expires after `seconds`.
 */
export async function takeCheckLease(host: string, holder: string, seconds: number): Promise<boolean> {
  const now = Math.floor(Date.now() / 1000);
  return conditionalUpdate({
    TableName: tableName('checkLeases'),
    Key: { host },
    UpdateExpression: 'SET holder = :holder, expiresAt = :until',
    ConditionExpression: 'attribute_not_exists(host) OR expiresAt < :now',
    ExpressionAttributeValues: { ':holder': holder, ':until': now + seconds, ':now': now },
  });
}

export async function releaseCheckLease(host: string, holder: string): Promise<void> {
  await conditionalDelete({
    TableName: tableName('checkLeases'),
    Key: { host },
    ConditionExpression: 'holder = :holder',
    ExpressionAttributeValues: { ':holder': holder },
  });
}

/**
 * Clears a health notification once sent. Bookkeeping, not a change of state: it keeps the
 * version, so a request that read the integration just before (a repair, an edit) does not lose
 * its conditional write to it. Only the notice that was sent is cleared.
 */
export async function clearHealthNotice(
  id: number,
  notice: NonNullable<IntegrationRecord['pendingHealthNotice']>,
): Promise<void> {
  await conditionalUpdate({
    TableName: tableName('integrations'),
    Key: { id },
    UpdateExpression: 'REMOVE #notice',
    ConditionExpression: '#notice = :notice',
    ExpressionAttributeNames: { '#notice': 'pendingHealthNotice' },
    ExpressionAttributeValues: { ':notice': notice },
  });
}
