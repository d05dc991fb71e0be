/**
 * The `dataSources` table (ADR 0016). A data source is one item, `ds#<id>`, from its registration
 * to a day after its removal (a removal turns it `deleted`, so the stream carries both of its
 * notices in order); `name#` and `prefix#` items are the uniqueness claims. Each registration and
 * removal is one transaction with the claims and the integration's `dataSourceCount`, whose
 * `version` it bumps (the integration delete's conditional write relies on that).
 */

import { getItem, queryAll } from '../store/read';
import { tableName } from '../store/tables';
import { cancellationCodes, isTransactionCancelled, type TransactItem, transactWrite } from '../store/write';

/** How long a removed data source's record stays (its notice is published long before). */
const DELETED_RETENTION_SECONDS = 24 * 3600;

export interface DataSourceItem {
  key: string;
  dataSourceId: number;
  integrationId: number;
  dataSourceName: string;
  prefix: string;
  /** The normalised prefix its claim holds (`bucket/key` without trailing slashes). */
  prefixClaim: string;
  state: 'registered' | 'deleted';
  createdAt: string;
  createdBy: number;
  createdByName?: string;
  deletedAt?: string;
  deletedBy?: number;
  deletedByName?: string;
  expiresAt?: number;
  /** Index keys, present while registered. */
  activeIntegrationId?: number;
  listed?: 'ds';
}

export interface Caller {
  userId: number;
  name?: string;
}

const table = () => tableName('dataSources');
const recordKey = (id: number) => `ds#${id}`;
export const nameClaimKey = (name: string) => `name#${name}`;
export const prefixClaimKey = (claim: string) => `prefix#${claim}`;

export async function getDataSource(id: number): Promise<DataSourceItem | undefined> {
  const item = await getItem<DataSourceItem>(table(), { key: recordKey(id) });
  return item?.state === 'registered' ? item : undefined;
}

/** The data source holding a claim, if any. */
export async function claimHolder(claim: string): Promise<number | undefined> {
  const item = await getItem<{ dataSourceId?: number }>(table(), { key: claim });
  return typeof item?.dataSourceId === 'number' ? item.dataSourceId : undefined;
}

/** The integration's count and version, changed with a data source (its item is integrations'). */
function integrationChange(
  integrationId: number,
  delta: 1 | -1,
  requireEnabled?: { type: string },
): TransactItem {
  return {
    Update: {
      TableName: tableName('integrations'),
      Key: { id: integrationId },
      UpdateExpression: 'SET #version = #version + :one ADD #count :delta',
      ConditionExpression: requireEnabled
        ? '#status = :enabled AND #type = :type'
        : 'attribute_exists(#version)',
      ExpressionAttributeNames: {
        '#version': 'version',
        '#count': 'dataSourceCount',
        ...(requireEnabled ? { '#status': 'status', '#type': 'type' } : {}),
      },
      ExpressionAttributeValues: {
        ':one': 1,
        ':delta': delta,
        ...(requireEnabled ? { ':enabled': 'enabled', ':type': requireEnabled.type } : {}),
      },
    },
  };
}

export type InsertOutcome = 'created' | 'integration' | { taken: 'name' | 'prefix' };

/**
 * Registers a data source with its claims, if the integration is still an enabled one of `type`.
 * Answers which condition failed otherwise (a conflict with a concurrent writer is retried by
 * `transactWrite`).
 */
export async function insertDataSource(
  item: Omit<DataSourceItem, 'key' | 'state' | 'activeIntegrationId' | 'listed'>,
  integrationType: string,
): Promise<InsertOutcome> {
  const record: DataSourceItem = {
    ...item,
    key: recordKey(item.dataSourceId),
    state: 'registered',
    activeIntegrationId: item.integrationId,
    listed: 'ds',
  };
  const claim = (key: string): TransactItem => ({
    Put: {
      TableName: table(),
      Item: { key, dataSourceId: item.dataSourceId },
      ConditionExpression: 'attribute_not_exists(#key)',
      ExpressionAttributeNames: { '#key': 'key' },
    },
  });
  try {
    await transactWrite([
      claim(nameClaimKey(item.dataSourceName)),
      claim(prefixClaimKey(item.prefixClaim)),
      {
        Put: {
          TableName: table(),
          Item: record,
          ConditionExpression: 'attribute_not_exists(#key)',
          ExpressionAttributeNames: { '#key': 'key' },
        },
      },
      integrationChange(item.integrationId, 1, { type: integrationType }),
    ]);
    return 'created';
  } catch (error) {
    if (!isTransactionCancelled(error)) throw error;
    const [name, prefix, , integration] = cancellationCodes(error);
    if (name === 'ConditionalCheckFailed') return { taken: 'name' };
    if (prefix === 'ConditionalCheckFailed') return { taken: 'prefix' };
    if (integration === 'ConditionalCheckFailed') return 'integration';
    throw error;
  }
}

/**
 * Removes a registered data source: the record turns `deleted` (who and when; expires in a day;
 * out of the indexes), its claims go, the integration's count goes down. False when it was not
 * registered (already removed by a concurrent request).
 */
export async function removeDataSource(item: DataSourceItem, by: Caller): Promise<boolean> {
  const release = (key: string): TransactItem => ({
    Delete: {
      TableName: table(),
      Key: { key },
      ConditionExpression: 'attribute_not_exists(#key) OR dataSourceId = :id',
      ExpressionAttributeNames: { '#key': 'key' },
      ExpressionAttributeValues: { ':id': item.dataSourceId },
    },
  });
  const now = new Date();
  try {
    await transactWrite([
      {
        Update: {
          TableName: table(),
          Key: { key: recordKey(item.dataSourceId) },
          UpdateExpression: `SET #state = :deleted, deletedAt = :at, deletedBy = :by, expiresAt = :expires${
            by.name ? ', deletedByName = :byName' : ''
          } REMOVE activeIntegrationId, listed`,
          ConditionExpression: '#state = :registered',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: {
            ':deleted': 'deleted',
            ':registered': 'registered',
            ':at': now.toISOString(),
            ':by': by.userId,
            ':expires': Math.floor(now.getTime() / 1000) + DELETED_RETENTION_SECONDS,
            ...(by.name ? { ':byName': by.name } : {}),
          },
        },
      },
      release(nameClaimKey(item.dataSourceName)),
      release(prefixClaimKey(item.prefixClaim)),
      integrationChange(item.integrationId, -1),
    ]);
    return true;
  } catch (error) {
    if (isTransactionCancelled(error) && cancellationCodes(error)[0] === 'ConditionalCheckFailed')
      return false;
    throw error;
  }
}

/** Registered data sources in id order after `after`: all of them, or one integration's. */
export function listDataSources(options: {
  integrationId?: number;
  after?: number;
  limit?: number;
}): Promise<DataSourceItem[]> {
  const byIntegration = options.integrationId !== undefined;
  return queryAll<DataSourceItem>(
    {
      TableName: table(),
      IndexName: byIntegration ? 'byIntegration' : 'byKind',
      KeyConditionExpression: `#pk = :pk${options.after !== undefined ? ' AND dataSourceId > :after' : ''}`,
      ExpressionAttributeNames: { '#pk': byIntegration ? 'activeIntegrationId' : 'listed' },
      ExpressionAttributeValues: {
        ':pk': byIntegration ? options.integrationId : 'ds',
        ...(options.after !== undefined ? { ':after': options.after } : {}),
      },
    },
    options.limit !== undefined ? { limit: options.limit } : {},
  );
}
