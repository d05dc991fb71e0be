/**
 * Principals and API keys. A key is 32 random bytes (base64url) behind a `cw_` prefix; only its
 * SHA-256 hash is stored. Keys are high-entropy, so a fast hash is safe here (no dictionary to
 * attack), and the key's item carries a copy of its principal (which never changes once written),
 * so the authorizer reads one item per key.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { AuthDenialReason } from '../catalog/metrics';
import { nextId } from '../store/counters';
import { APPLICATION_ADMIN, type Permission, type Principal, principalSchema } from './permissions';
import {
  type ApiKeyRecord,
  allApiKeyRecords,
  allPrincipalItems,
  apiKeysOfUser,
  getApiKeyRecord,
  getPrincipalItem,
  putApiKeyRecord,
  putPrincipal,
  revokeApiKey,
} from './store';

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

/** Why authentication failed (the `AuthDenials` metric's reason) and the 401 message for it. */
const FAILURES = {
  missing: 'a valid API key is required in the Authorization header',
  unknown: 'the API key is not recognised',
  revoked: 'the API key has been revoked',
} as const satisfies Record<AuthDenialReason, string>;

export type Authentication =
  | { ok: true; principal: Principal }
  | { ok: false; failure: AuthDenialReason; reason: string };

const failed = (failure: AuthDenialReason): Authentication => ({
  ok: false,
  failure,
  reason: FAILURES[failure],
});

export async function authenticate(authorization: string | undefined): Promise<Authentication> {
  const apiKey = extractApiKey(authorization);
  if (!apiKey) return failed('missing');
  const record = await getApiKeyRecord(hashApiKey(apiKey));
  if (!record) return failed('unknown');
  if (record.revokedAt) return failed('revoked');
  const principal = await principalOf(record);
  if (!principal) return failed('unknown');
  return { ok: true, principal };
}

/** The key's principal: the copy its item carries, or (a key registered before) its own item. */
async function principalOf(record: ApiKeyRecord): Promise<Principal | undefined> {
  if (record.principal) return principalSchema().parse({ userId: record.userId, ...record.principal });
  const item = await getPrincipalItem(record.userId);
  if (!item) return undefined;
  return principalSchema().parse({ userId: item.userId, name: item.name, permissions: item.permissions });
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
  const principal = principalSchema().parse({ userId, name, permissions: [...permissions] });
  if (!(await putPrincipal({ ...principal, createdAt: new Date().toISOString() }, { ifAbsent: true }))) {
    throw new Error(`principal ${userId} already exists`);
  }
  const apiKey = generateApiKey();
  await registerApiKey(apiKey, principal);
  return { ...principal, apiKey };
}

/** Registers a key of `principal` (written before it), with a copy of the principal. */
async function registerApiKey(apiKey: string, principal: Principal): Promise<void> {
  const registered = await putApiKeyRecord({
    keyHash: hashApiKey(apiKey),
    userId: principal.userId,
    createdAt: new Date().toISOString(),
    principal: { name: principal.name, permissions: [...principal.permissions] },
  });
  if (!registered) throw new Error('the API key is already registered');
}

/** Makes sure `apiKey` belongs to an active admin; creates the admin principal if needed. */
export async function ensureAdminKey(apiKey: string, name = 'admin'): Promise<Principal> {
  const record = await getApiKeyRecord(hashApiKey(apiKey));
  if (record && !record.revokedAt) {
    const principal = await principalOf(record);
    if (principal?.permissions.includes(APPLICATION_ADMIN)) return principal;
  }
  if (record?.revokedAt) throw new Error('ADMIN_API_KEY has been revoked; choose another key');
  const userId = await nextId('principals');
  const principal = principalSchema().parse({ userId, name, permissions: [APPLICATION_ADMIN] });
  await putPrincipal({ ...principal, createdAt: new Date().toISOString() }, { ifAbsent: false });
  await registerApiKey(apiKey, principal);
  return principal;
}

/** Revokes every key of a user; returns how many were revoked. */
export async function revokeUserKeys(userId: number): Promise<number> {
  let revoked = 0;
  for (const key of await apiKeysOfUser(userId)) {
    if (key.revokedAt) continue;
    if (await revokeApiKey(key.keyHash, new Date().toISOString())) revoked++;
  }
  return revoked;
}

/** How many of the user's keys are not revoked. */
export async function activeKeyCount(userId: number): Promise<number> {
  return (await apiKeysOfUser(userId)).filter((key) => !key.revokedAt).length;
}

export interface PrincipalSummary extends Principal {
  createdAt: string;
  activeKeys: number;
}

/** Operator listing for the CLI (small table; a scan is acceptable for this admin tool). */
export async function listPrincipals(): Promise<PrincipalSummary[]> {
  const [principals, keys] = await Promise.all([allPrincipalItems(), allApiKeyRecords()]);
  const active = new Map<number, number>();
  for (const k of keys) {
    if (!k.revokedAt) active.set(k.userId, (active.get(k.userId) ?? 0) + 1);
  }
  return principals
    .map((p) => ({
      userId: p.userId,
      name: p.name,
      permissions: p.permissions as Permission[],
      createdAt: p.createdAt,
      activeKeys: active.get(p.userId) ?? 0,
    }))
    .sort((a, b) => a.userId - b.userId);
}
