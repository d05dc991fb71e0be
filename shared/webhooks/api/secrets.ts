/**
 * `POST /webhooks/{id}/secret/rotate`: a new signing credential (ADR 0018). A `v1` webhook gets a
 * new HMAC secret, the caller's (`{"secret": …}`) or a generated one (`whsec_` + 24 random bytes,
 * answered once and never again); a `v1a` webhook gets a new Ed25519 key pair (a secret sent for
 * it is refused: the service makes its keys), whose public key is answered and published. The
 * credential it replaces keeps signing until the overlap window ends (stage
 * `webhookSecretOverlapSeconds`, 24 h by default): every delivery in the window carries both
 * signatures, so a receiver verifies with either while it switches over. A rotation inside the
 * window drops the oldest credential (two live at most); one while a scheme switch's window runs
 * is refused (../credentials.ts). A webhook without a secret gets its first one this way.
 */
import type { Principal } from '../../auth/permissions';
import { InvalidInputError } from '../../errors';
import { secretOverlapSeconds } from '../config';
import { type NewCredential, newHmacSecret, newKeyPair, replaceCredential, schemeOf } from '../credentials';
import { changeWebhook } from '../lifecycle';
import { type WebhookView, webhookView } from '../model';
import { generateSecret, secretProblem } from '../pipeline/signing';
import { assertVisible, webhookNotFound } from './webhooks';

export interface RotatedSecret {
  webhook: WebhookView;
  /** The generated HMAC secret, only when the caller sent none and the webhook is `v1`. */
  secret?: string;
  /** A `v1a` webhook's new public key. */
  publicKey?: string;
}

const V1A_SECRET =
  "body.secret: this webhook's signatureScheme is v1a: it signs with an Ed25519 key pair the service makes; rotate without a body for a new pair";

export async function rotateSecret(
  caller: Principal,
  id: number,
  input: { secret?: string } | undefined,
  serviceUrl: string,
): Promise<RotatedSecret> {
  const chosen = input?.secret;
  const problem = chosen === undefined ? undefined : secretProblem(chosen);
  if (problem) throw new InvalidInputError(`body.secret: ${problem}`);
  const secret = chosen ?? generateSecret();
  // Both kinds are made before the change (it is computed again after a lost race, and the
  // scheme read then decides): sealing is asynchronous, a change is not.
  const [hmac, key] = await Promise.all([
    newHmacSecret(id, secret),
    chosen === undefined ? newKeyPair(id) : undefined,
  ]);
  const overlapEnds = new Date(Date.now() + secretOverlapSeconds() * 1000).toISOString();
  const result = await changeWebhook(id, (current) => {
    assertVisible(caller, current);
    if (schemeOf(current) === 'v1a' && key === undefined) throw new InvalidInputError(V1A_SECRET);
    const fresh: NewCredential = schemeOf(current) === 'v1a' ? (key as NewCredential) : hmac;
    return replaceCredential(current, fresh, overlapEnds);
  });
  if (!result) throw webhookNotFound(id);
  const after = result.after;
  const view = webhookView(after, serviceUrl);
  if (after.signatureScheme === 'v1a')
    return { webhook: view, ...(after.publicKey ? { publicKey: after.publicKey } : {}) };
  return { webhook: view, ...(chosen === undefined && after.secret === hmac.sealedSecret ? { secret } : {}) };
}
