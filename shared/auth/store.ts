/**
 * DynamoDB access for principals and API keys (the key rules live in keys.ts). Keys are stored
 * by the SHA-256 of the key, never the key itself.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../store/clients';
import { queryAll, scanAll } from '../store/read';
import { tableName } from '../store/tables';
import { conditionalUpdate, putIfAbsent } from '../store/write';

export interface ApiKeyRecord {
  keyHash: string;
  userId: number;
  createdAt: string;
  revokedAt?: string;
  /**
   * The key's principal as it was registered (a principal never changes once written), so that
   * authenticating a key is one read. Keys registered before it was kept lack it: their principal
   * is read from its own item.
   */
  principal?: { name: string; permissions: string[] };
}

export interface PrincipalItem {
  userId: number;
  name: string;
  permissions: string[];
  createdAt: string;
}

export async function getApiKeyRecord(keyHash: string): Promise<ApiKeyRecord | undefined> {
  const out = await documentClient.send(
    new GetCommand({ TableName: tableName('apiKeys'), Key: { keyHash } }),
  );
  return out.Item as ApiKeyRecord | undefined;
}

export async function getPrincipalItem(userId: number): Promise<Record<string, unknown> | undefined> {
  const out = await documentClient.send(
    new GetCommand({ TableName: tableName('principals'), Key: { userId } }),
  );
  return out.Item;
}

/** Writes a principal; with `ifAbsent`, false when the id is taken (nothing written). */
export async function putPrincipal(item: PrincipalItem, options: { ifAbsent: boolean }): Promise<boolean> {
  if (options.ifAbsent) return putIfAbsent(tableName('principals'), { ...item }, 'userId');
  await documentClient.send(new PutCommand({ TableName: tableName('principals'), Item: item }));
  return true;
}

/** Stores a key record unless the key is already registered; false when it was. */
export function putApiKeyRecord(record: ApiKeyRecord): Promise<boolean> {
  return putIfAbsent(tableName('apiKeys'), { ...record }, 'keyHash');
}

export function apiKeysOfUser(userId: number): Promise<ApiKeyRecord[]> {
  return queryAll<ApiKeyRecord>({
    TableName: tableName('apiKeys'),
    IndexName: 'byUser',
    KeyConditionExpression: 'userId = :u',
    ExpressionAttributeValues: { ':u': userId },
  });
}

/** Marks a key revoked; false when it already was. */
export function revokeApiKey(keyHash: string, at: string): Promise<boolean> {
  return conditionalUpdate({
    TableName: tableName('apiKeys'),
    Key: { keyHash },
    UpdateExpression: 'SET revokedAt = :now',
    ConditionExpression: 'attribute_not_exists(revokedAt)',
    ExpressionAttributeValues: { ':now': at },
  });
}

export function allPrincipalItems(): Promise<PrincipalItem[]> {
  return scanAll<PrincipalItem>({ TableName: tableName('principals') });
}

export function allApiKeyRecords(): Promise<ApiKeyRecord[]> {
  return scanAll<ApiKeyRecord>({ TableName: tableName('apiKeys') });
}
