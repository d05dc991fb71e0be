/**
 * `GET /webhooks/aws-trust` (ADR 0019): what the caller's AWS role must trust for webhook
 * deliveries into their account — the stage's delivery principal, the caller's ExternalId and the
 * trust policy that ties the two. The ExternalId is made on the first request and kept for good.
 */
import type { Principal } from '../../auth/permissions';
import { deliveryPrincipalArn, newExternalId, type TrustPolicy, trustPolicy } from '../aws-trust';
import { storedExternalId, storeExternalIdIfAbsent } from '../store/aws-trust';

export interface AwsTrust {
  externalId: string;
  principalArn: string;
  trustPolicy: TrustPolicy;
}

/** Where ExternalIds are kept (the table; tests pass their own). */
interface ExternalIdStore {
  read(userId: number): Promise<string | undefined>;
  createIfAbsent(userId: number, externalId: string): Promise<boolean>;
}

const table: ExternalIdStore = { read: storedExternalId, createIfAbsent: storeExternalIdIfAbsent };

/**
 * The user's ExternalId, made now if they have none. Concurrent first requests all answer the
 * same one: each tries a conditional create, and the ones that lose read the winner's.
 */
export async function externalIdOf(userId: number, store: ExternalIdStore = table): Promise<string> {
  const stored = await store.read(userId);
  if (stored !== undefined) return stored;
  const made = newExternalId();
  if (await store.createIfAbsent(userId, made)) return made;
  const winner = await store.read(userId);
  // The create failed because an item exists, and items are never deleted.
  if (winner === undefined) throw new Error(`the ExternalId of user ${userId} exists but cannot be read`);
  return winner;
}

export async function awsTrust(principal: Principal): Promise<AwsTrust> {
  const externalId = await externalIdOf(principal.userId);
  const principalArn = deliveryPrincipalArn();
  return { externalId, principalArn, trustPolicy: trustPolicy(principalArn, externalId) };
}
