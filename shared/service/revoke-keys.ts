/**
 * Revoking a principal's API keys, with what it means for the principal's other objects: when
 * no active key is left, every webhook the principal owns is disabled (not deleted) with the
 * reason, so fan-out stops delivering to it at once, and only an admin may enable it again
 * (docs/webhooks.md, Key revocation). Running it again finishes a revocation a crash cut short.
 */
import { activeKeyCount, revokeUserKeys } from '../auth/keys';
import { disableWebhooksOfRevokedOwner } from '../webhooks/lifecycle';

export interface Revocation {
  userId: number;
  /** Keys revoked by this call. */
  revokedKeys: number;
  /** Webhooks disabled by this call because the user has no active key left. */
  disabledWebhooks: number[];
}

export async function revokeKeys(userId: number): Promise<Revocation> {
  const revokedKeys = await revokeUserKeys(userId);
  const disabledWebhooks =
    (await activeKeyCount(userId)) > 0 ? [] : await disableWebhooksOfRevokedOwner(userId);
  return { userId, revokedKeys, disabledWebhooks };
}
