/**
 * Integration storage on DynamoDB. Every status move is a conditional write (on `version`,
 * `status` or `requestId`), and uniqueness is enforced by one item per claim in the claims
 * table written in the same transaction as the integration, so two racing requests can never
 * both win: the loser's condition fails and it answers 409.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../store/clients';
import { queryAll, scanAll, sleep } from '../../store/read';
import { tableName } from '../../store/tables';
import {
  cancellationCodes,
  conditionalDelete,
  conditionalUpdate,
  isTransactionCancelled,
  type TransactItem,
  transactWrite,
} from '../../store/write';
import type { InFlightStatus, IntegrationStatus } from '../lifecycle';
import type { IntegrationRecord } from '../model';

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
