/**
 * Integration storage on DynamoDB. Every status move is a conditional write (on `version`,
 * `status` or `requestId`), and uniqueness is enforced by one item per claim in the claims
 * table written in the same transaction as the integration, so two racing requests can never
 * both win: the loser's condition fails and it answers 409.
 */
import { DeleteCommand, GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../store/clients';
import { queryAll, scanAll, sleep } from '../store/read';
import { tableName } from '../store/tables';
import {
  cancellationCodes,
  conditionalDelete,
  conditionalUpdate,
  isTransactionCancelled,
  putIfAbsent,
  type TransactItem,
  transactWrite,
} from '../store/write';
import type { InFlightStatus, IntegrationStatus } from './lifecycle';
import type { IntegrationRecord } from './model';

const IN_FLIGHT_INDEX = 'byInFlightStatus';

/** A claim was taken by another integration between our check and our write. */
export class ClaimTakenError extends Error {
  override name = 'ClaimTakenError';
  constructor(readonly claims: string[]) {
    super('a uniqueness claim is held by another integration');
  }
}

export async function getIntegration(id: number): Promise<IntegrationRecord | undefined> {
  const out = await documentClient.send(
    new GetCommand({ TableName: tableName('integrations'), Key: { id }, ConsistentRead: true }),
  );
  return out.Item as IntegrationRecord | undefined;
}

/** All integrations, ordered by id. The table holds one item per remote platform (a few dozen). */
export async function listIntegrations(): Promise<IntegrationRecord[]> {
  const items = await scanAll<IntegrationRecord>({
    TableName: tableName('integrations'),
    ConsistentRead: true,
  });
  return items.sort((a, b) => a.id - b.id);
}

/** Integrations in one in-flight status (sparse index: only in-flight items carry the key). */
export function listInFlight(status: InFlightStatus): Promise<IntegrationRecord[]> {
  return queryAll<IntegrationRecord>({
    TableName: tableName('integrations'),
    IndexName: IN_FLIGHT_INDEX,
    KeyConditionExpression: '#s = :s',
    ExpressionAttributeNames: { '#s': 'inFlightStatus' },
    ExpressionAttributeValues: { ':s': status },
  });
}

export async function claimHolder(claim: string): Promise<number | undefined> {
  const out = await documentClient.send(
    new GetCommand({ TableName: tableName('integrationClaims'), Key: { claim }, ConsistentRead: true }),
  );
  const id = out.Item?.integrationId;
  return typeof id === 'number' ? id : undefined;
}

/** Removes a claim left by an integration that no longer holds it (only if still that holder's). */
export async function releaseStaleClaim(claim: string, holderId: number): Promise<void> {
  await conditionalDelete({
    TableName: tableName('integrationClaims'),
    Key: { claim },
    ConditionExpression: 'integrationId = :id',
    ExpressionAttributeValues: { ':id': holderId },
  });
}

/**
 * Writes a new integration and its claims atomically. Throws ClaimTakenError naming the claims
 * whose condition failed; transaction conflicts (another writer on the same claim at the same
 * instant) are retried briefly, after which the claim is either ours or visibly taken.
 */
export async function insertWithClaims(record: IntegrationRecord): Promise<void> {
  const items: TransactItem[] = [
    ...record.claims.map(
      (claim): TransactItem => ({
        Put: {
          TableName: tableName('integrationClaims'),
          Item: { claim, integrationId: record.id, createdAt: record.createdAt },
          ConditionExpression: 'attribute_not_exists(claim)',
        },
      }),
    ),
    {
      Put: {
        TableName: tableName('integrations'),
        Item: record,
        ConditionExpression: 'attribute_not_exists(id)',
      },
    },
  ];
  for (let attempt = 0; ; attempt++) {
    try {
      await transactWrite(items);
      return;
    } catch (error) {
      if (!isTransactionCancelled(error)) throw error;
      const codes = cancellationCodes(error);
      const taken = record.claims.filter((_c, i) => codes[i] === 'ConditionalCheckFailed');
      if (taken.length > 0) throw new ClaimTakenError(taken);
      if (attempt >= 6) throw new ClaimTakenError(record.claims);
      await sleep(20 + Math.random() * 40 * (attempt + 1));
    }
  }
}

export interface WriteCondition {
  version?: number;
  status?: IntegrationStatus | readonly IntegrationStatus[];
  requestId?: string;
}

export interface IntegrationChange {
  set?: Partial<Omit<IntegrationRecord, 'id' | 'version'>>;
  remove?: readonly (keyof IntegrationRecord)[];
  /** Claims to delete in the same transaction (when the integration leaves the service). */
  releaseClaims?: readonly string[];
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

/**
 * Applies a change if the integration still matches `condition`; returns false (and writes
 * nothing) when it does not. `version` is bumped on every successful write.
 */
export async function updateIntegration(
  id: number,
  condition: WriteCondition,
  change: IntegrationChange,
): Promise<boolean> {
  const names: Record<string, string> = { '#version': 'version' };
  const values: Record<string, unknown> = { ':one': 1 };
  const sets = ['#version = #version + :one'];
  const conditions = ['attribute_exists(id)'];
  let n = 0;
  for (const [key, value] of Object.entries(change.set ?? {})) {
    if (value === undefined) continue;
    names[`#a${n}`] = key;
    values[`:a${n}`] = value;
    sets.push(`#a${n} = :a${n}`);
    n++;
  }
  const removes = (change.remove ?? []).map((key, i) => {
    names[`#r${i}`] = key;
    return `#r${i}`;
  });
  if (condition.version !== undefined) {
    values[':expectedVersion'] = condition.version;
    conditions.push('#version = :expectedVersion');
  }
  if (condition.status !== undefined) {
    names['#status'] = 'status';
    const statuses = typeof condition.status === 'string' ? [condition.status] : condition.status;
    const keys = statuses.map((s, i) => {
      values[`:s${i}`] = s;
      return `:s${i}`;
    });
    conditions.push(`#status IN (${keys.join(', ')})`);
  }
  if (condition.requestId !== undefined) {
    names['#requestId'] = 'requestId';
    values[':requestId'] = condition.requestId;
    conditions.push('#requestId = :requestId');
  }
  const update = {
    TableName: tableName('integrations'),
    Key: { id },
    UpdateExpression: `SET ${sets.join(', ')}${removes.length > 0 ? ` REMOVE ${removes.join(', ')}` : ''}`,
    ConditionExpression: conditions.join(' AND '),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
  if (!change.releaseClaims || change.releaseClaims.length === 0) return conditionalUpdate(update);
  try {
    await transactWrite([
      { Update: update },
      ...change.releaseClaims.map(
        (claim): TransactItem => ({
          Delete: {
            TableName: tableName('integrationClaims'),
            Key: { claim },
            ConditionExpression: 'attribute_not_exists(claim) OR integrationId = :id',
            ExpressionAttributeValues: { ':id': id },
          },
        }),
      ),
    ]);
    return true;
  } catch (error) {
    if (isTransactionCancelled(error) && cancellationCodes(error)[0] === 'ConditionalCheckFailed')
      return false;
    throw error;
  }
}

// ── remote progress of the operation in flight ───────────────────────────────────────────

/** The attributes of an operation's remote progress; a newly accepted request clears them. */
export const PROGRESS_ATTRIBUTES = ['appliedSteps', 'undoneSteps', 'remoteFailure'] as const;

/**
 * Appends steps to the request's progress list in one write (a step and the steps removed with
 * it are recorded together or not at all), only while the integration still belongs to the
 * request (false otherwise: the caller's work is stale and must stop).
 */
export async function recordStep(
  id: number,
  requestId: string,
  list: 'appliedSteps' | 'undoneSteps',
  steps: readonly string[],
): Promise<boolean> {
  return conditionalUpdate({
    TableName: tableName('integrations'),
    Key: { id },
    UpdateExpression: 'SET #l = list_append(if_not_exists(#l, :empty), :step)',
    ConditionExpression: '#r = :r',
    ExpressionAttributeNames: { '#l': list, '#r': 'requestId' },
    ExpressionAttributeValues: { ':empty': [], ':step': [...steps], ':r': requestId },
  });
}

/** Keeps why the request's remote work failed until its undo has run. */
export async function recordRemoteFailure(id: number, requestId: string, message: string): Promise<boolean> {
  return conditionalUpdate({
    TableName: tableName('integrations'),
    Key: { id },
    UpdateExpression: 'SET #f = :f',
    ConditionExpression: '#r = :r',
    ExpressionAttributeNames: { '#f': 'remoteFailure', '#r': 'requestId' },
    ExpressionAttributeValues: { ':f': message, ':r': requestId },
  });
}

// ── transient secrets: privileged delete credentials handed to the workflow by reference ──

export async function putTransientSecret(
  ref: string,
  sealed: string,
  integrationId: number,
  ttlSeconds: number,
): Promise<void> {
  const expiresAt = Math.floor(Date.now() / 1000) + ttlSeconds;
  const written = await putIfAbsent(
    tableName('transientSecrets'),
    { id: ref, sealed, integrationId, expiresAt },
    'id',
  );
  if (!written) throw new Error('the transient secret reference is already in use');
}

/** The sealed value, unless missing or past its expiry (TTL deletion lags, so check it here). */
export async function getTransientSecret(ref: string): Promise<string | undefined> {
  const out = await documentClient.send(
    new GetCommand({ TableName: tableName('transientSecrets'), Key: { id: ref }, ConsistentRead: true }),
  );
  const item = out.Item as { sealed?: string; expiresAt?: number } | undefined;
  if (!item?.sealed || (item.expiresAt ?? 0) < Date.now() / 1000) return undefined;
  return item.sealed;
}

export async function deleteTransientSecret(ref: string): Promise<void> {
  await documentClient.send(
    new DeleteCommand({ TableName: tableName('transientSecrets'), Key: { id: ref } }),
  );
}

// ── periodic checks ───────────────────────────────────────────────────────────────────────

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
