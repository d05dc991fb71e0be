/**
 * The box webhook secrets are sealed in (envelope encryption, shared/crypto/envelope.ts): the
 * API seals a secret (or a `v1a` webhook's Ed25519 secret key, ADR 0018) when a webhook is
 * created, its secret rotated or its scheme switched; the delivery pipeline opens it to sign a
 * request. Neither side depends on the other for it.
 *
 * A secret is bound to its webhook (docs/adr/0008): sealed for another webhook, it does not open.
 * It is not bound to the URL: the secret never travels (only a signature does), and the owner
 * may point the webhook elsewhere. `enc:v1:` values from before bindings still open until the
 * one-off reseal (`npm run cli -- secrets reseal`) rewrites them.
 */
import { type Binding, SecretBox } from '../crypto/envelope';
import type { WebhookItem } from './model';
import type { SigningCredential } from './pipeline/signing';

/** @public read by the reseal test through the module namespace */
export const WEBHOOK_SECRET_PURPOSE = 'webhook-secret';

const box = new SecretBox(WEBHOOK_SECRET_PURPOSE, undefined, { legacyPurpose: WEBHOOK_SECRET_PURPOSE });

type SealedField = 'signingSecret' | 'signingKey';

const bindingOf = (webhookId: number, field: SealedField = 'signingSecret'): Binding => ({
  owner: `webhook-${webhookId}`,
  field,
});

/** The signing secret of webhook `webhookId`, sealed for it. */
export function sealWebhookSecret(webhookId: number, secret: string): Promise<string> {
  return box.encrypt(secret, bindingOf(webhookId));
}

/** The signing secret sealed for webhook `webhookId` (`UnreadableCiphertextError` if it was not). */
export function openWebhookSecret(webhookId: number, sealed: string): Promise<string> {
  return box.decrypt(sealed, bindingOf(webhookId));
}

/** The Ed25519 secret key (`whsk_…`) of webhook `webhookId`, sealed for it as its signing key. */
export function sealWebhookSigningKey(webhookId: number, secretKey: string): Promise<string> {
  return box.encrypt(secretKey, bindingOf(webhookId, 'signingKey'));
}

/** The Ed25519 secret key sealed for webhook `webhookId` as its signing key. */
export function openWebhookSigningKey(webhookId: number, sealed: string): Promise<string> {
  return box.decrypt(sealed, bindingOf(webhookId, 'signingKey'));
}

/**
 * What a request is signed with now, newest first: the current secret or key, and the previous
 * one (of either kind) while a rotation's or a scheme switch's overlap window lasts.
 */
export async function signingCredentials(
  webhook: Pick<
    WebhookItem,
    | 'id'
    | 'signatureScheme'
    | 'secret'
    | 'signingKey'
    | 'previousSecret'
    | 'previousSigningKey'
    | 'previousSecretExpiresAt'
  >,
  now = Date.now(),
): Promise<SigningCredential[]> {
  const key = (sealed: string) =>
    box
      .decrypt(sealed, bindingOf(webhook.id, 'signingKey'))
      .then((secretKey) => ({ scheme: 'v1a' as const, secretKey }));
  const hmac = (sealed: string) => openWebhookSecret(webhook.id, sealed);
  const live: Promise<SigningCredential>[] = [];
  if (webhook.signatureScheme === 'v1a') {
    if (webhook.signingKey !== undefined) live.push(key(webhook.signingKey));
  } else if (webhook.secret !== undefined) live.push(hmac(webhook.secret));
  if (webhook.previousSecretExpiresAt !== undefined && Date.parse(webhook.previousSecretExpiresAt) > now) {
    if (webhook.previousSigningKey !== undefined) live.push(key(webhook.previousSigningKey));
    else if (webhook.previousSecret !== undefined) live.push(hmac(webhook.previousSecret));
  }
  return Promise.all(live);
}
