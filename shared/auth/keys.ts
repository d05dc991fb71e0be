/**
 * Principals and API keys. A key is 32 random bytes (base64url) behind a `cw_` prefix; only its
 * SHA-256 hash is stored. Keys are high-entropy, so a fast hash is safe here (no dictionary to
 * attack) and keeps the authorizer at one GetItem per key.
 */
import { createHash, randomBytes } from 'node:crypto';
import { GetCommand, PutCommand, paginateQuery, paginateScan, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../store/clients';
import { nextId } from '../store/counters';
import { tableName } from '../store/tables';
import { APPLICATION_ADMIN, type Permission, type Principal, PrincipalSchema } from './permissions';

const KEY_PREFIX = 'cw_';

export function generateApiKey(): string {
  return `${KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
}

export function hashApiKey(apiKey: string): string {
  return createHash('sha256').update(apiKey, 'utf8').digest('hex');
}

/** Accepts `<key>` and `Bearer <key>` (scheme word case-insensitive). */
export function extractApiKey(authorization: string | undefined): string | undefined {
  if (!authorization) return undefined;
  const value = authorization.trim();
  const match = /^bearer\s+(.+)$/i.exec(value);
  const key = (match ? match[1] : value)?.trim();
  return key ? key : undefined;
}

export interface ApiKeyRecord {
  keyHash: string;
  userId: number;
  createdAt: string;
  revokedAt?: string;
}

export type Authentication = { ok: true; principal: Principal } | { ok: false; reason: string };

export async function authenticate(authorization: string | undefined): Promise<Authentication> {
  const apiKey = extractApiKey(authorization);
  if (!apiKey) return { ok: false, reason: 'a valid API key is required in the Authorization header' };
  const key = await documentClient.send(
    new GetCommand({ TableName: tableName('apiKeys'), Key: { keyHash: hashApiKey(apiKey) } }),
  );
  const record = key.Item as ApiKeyRecord | undefined;
  if (!record) return { ok: false, reason: 'the API key is not recognised' };
  if (record.revokedAt) return { ok: false, reason: 'the API key has been revoked' };
  const principal = await getPrincipal(record.userId);
  if (!principal) return { ok: false, reason: 'the API key is not recognised' };
  return { ok: true, principal };
}

export async function getPrincipal(userId: number): Promise<Principal | undefined> {
  const out = await documentClient.send(
    new GetCommand({ TableName: tableName('principals'), Key: { userId } }),
  );
  if (!out.Item) return undefined;
  return PrincipalSchema.parse({
    userId: out.Item.userId,
    name: out.Item.name,
    permissions: out.Item.permissions,
  });
}

export interface IssuedKey extends Principal {
  apiKey: string;
}

/** Creates a principal with a fresh API key (the only time the key is ever visible). */
export async function createPrincipalWithKey(
  name: string,
  permissions: readonly Permission[],
): Promise<IssuedKey> {
  const userId = await nextId('principals');
  const principal = PrincipalSchema.parse({ userId, name, permissions: [...permissions] });
  const now = new Date().toISOString();
  await documentClient.send(
    new PutCommand({
      TableName: tableName('principals'),
      Item: { ...principal, createdAt: now },
      ConditionExpression: 'attribute_not_exists(userId)',
    }),
  );
  const apiKey = generateApiKey();
  await registerApiKey(apiKey, userId);
  return { ...principal, apiKey };
}

/** Registers a caller-chosen key (admin bootstrap from ADMIN_API_KEY); idempotent per key. */
export async function registerApiKey(apiKey: string, userId: number): Promise<void> {
  await documentClient.send(
    new PutCommand({
      TableName: tableName('apiKeys'),
      Item: {
        keyHash: hashApiKey(apiKey),
        userId,
        createdAt: new Date().toISOString(),
      } satisfies ApiKeyRecord,
      ConditionExpression: 'attribute_not_exists(keyHash)',
    }),
  );
}

/** Makes sure `apiKey` belongs to an active admin; creates the admin principal if needed. */
export async function ensureAdminKey(apiKey: string, name = 'admin'): Promise<Principal> {
  const existing = await documentClient.send(
    new GetCommand({ TableName: tableName('apiKeys'), Key: { keyHash: hashApiKey(apiKey) } }),
  );
  const record = existing.Item as ApiKeyRecord | undefined;
  if (record && !record.revokedAt) {
    const principal = await getPrincipal(record.userId);
    if (principal?.permissions.includes(APPLICATION_ADMIN)) return principal;
  }
  if (record?.revokedAt) throw new Error('ADMIN_API_KEY has been revoked; choose another key');
  const userId = await nextId('principals');
  const principal = PrincipalSchema.parse({ userId, name, permissions: [APPLICATION_ADMIN] });
  await documentClient.send(
    new PutCommand({
      TableName: tableName('principals'),
      Item: { ...principal, createdAt: new Date().toISOString() },
    }),
  );
  await registerApiKey(apiKey, userId);
  return principal;
}

/** Revokes every key of a user; returns how many were revoked. */
export async function revokeUserKeys(userId: number): Promise<number> {
  const pages = paginateQuery(
    { client: documentClient },
    {
      TableName: tableName('apiKeys'),
      IndexName: 'byUser',
      KeyConditionExpression: 'userId = :u',
      ExpressionAttributeValues: { ':u': userId },
    },
  );
  const items: Record<string, unknown>[] = [];
  for await (const page of pages) items.push(...(page.Items ?? []));
  let revoked = 0;
  for (const item of items) {
    if (item.revokedAt) continue;
    await documentClient.send(
      new UpdateCommand({
        TableName: tableName('apiKeys'),
        Key: { keyHash: item.keyHash },
        UpdateExpression: 'SET revokedAt = :now',
        ConditionExpression: 'attribute_not_exists(revokedAt)',
        ExpressionAttributeValues: { ':now': new Date().toISOString() },
      }),
    );
    revoked++;
  }
  return revoked;
}

export interface PrincipalSummary extends Principal {
  createdAt: string;
  activeKeys: number;
}

/** Operator listing for the CLI (small table; a scan is acceptable for this admin tool). */
export async function listPrincipals(): Promise<PrincipalSummary[]> {
  const scanAll = async (table: string) => {
    const items: Record<string, unknown>[] = [];
    for await (const page of paginateScan({ client: documentClient }, { TableName: table })) {
      items.push(...(page.Items ?? []));
    }
    return items;
  };
  const [principals, keys] = await Promise.all([
    scanAll(tableName('principals')),
    scanAll(tableName('apiKeys')),
  ]);
  const active = new Map<number, number>();
  for (const k of keys) {
    if (!k.revokedAt) active.set(k.userId as number, (active.get(k.userId as number) ?? 0) + 1);
  }
  return principals
    .map((p) => ({
      userId: p.userId as number,
      name: p.name as string,
      permissions: p.permissions as Permission[],
      createdAt: p.createdAt as string,
      activeKeys: active.get(p.userId as number) ?? 0,
    }))
    .sort((a, b) => a.userId - b.userId);
}
