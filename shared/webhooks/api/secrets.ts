/**
 * `POST /webhooks/{id}/secret/rotate`: a new signing secret, the caller's (`{"secret": …}`) or a
 * generated one (`whsec_` + 24 random bytes, answered once and never again). The secret it
 * replaces keeps signing until the overlap window ends (stage `webhookSecretOverlapSeconds`,
 * 24 h by default): every delivery in the window carries both signatures, so a receiver verifies
 * with either secret while it switches over. A rotation inside the window drops the oldest
 * secret (two live secrets at most). A webhook without a secret gets its first one this way.
 */
import type { Principal } from '../../auth/permissions';
import { InvalidInputError } from '../../errors';
import { secretOverlapSeconds } from '../config';
import { changeWebhook } from '../lifecycle';
import { type WebhookItem, type WebhookView, webhookView } from '../model';
import { generateSecret, secretProblem } from '../pipeline/signing';
import { sealWebhookSecret } from '../secrets';
import { assertVisible, webhookNotFound } from './webhooks';

export interface RotatedSecret {
  webhook: WebhookView;
  /** The generated secret, only when the caller sent none. */
  secret?: string;
}

export async function rotateSecret(
  caller: Principal,
  id: number,
  input: { secret?: string } | undefined,
): Promise<RotatedSecret> {
  const chosen = input?.secret;
  const problem = chosen === undefined ? undefined : secretProblem(chosen);
  if (problem) throw new InvalidInputError(`body.secret: ${problem}`);
  const secret = chosen ?? generateSecret();
  const sealed = await sealWebhookSecret(id, secret);
  const overlapEnds = new Date(Date.now() + secretOverlapSeconds() * 1000).toISOString();
  const result = await changeWebhook(id, (current) => {
    assertVisible(caller, current);
    const { previousSecret: _secret, previousSecretExpiresAt: _until, ...rest } = current;
    const next: WebhookItem = { ...rest, secret: sealed };
    if (current.secret !== undefined) {
      next.previousSecret = current.secret;
      next.previousSecretExpiresAt = overlapEnds;
    }
    return next;
  });
  if (!result) throw webhookNotFound(id);
  return { webhook: webhookView(result.after), ...(chosen === undefined ? { secret } : {}) };
}
