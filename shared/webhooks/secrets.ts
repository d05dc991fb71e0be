/**
 * The box webhook secrets are sealed in (envelope encryption, shared/crypto/envelope.ts): the
 * API seals a secret when a webhook is created or its secret rotated, the delivery pipeline
 * opens it to sign a request. Neither side depends on the other for it.
 *
 * A secret is bound to its webhook (docs/adr/0008): sealed for another webhook, it does not open.
 * It is not bound to the URL: the secret never travels (only a signature does), and the owner
 * may point the webhook elsewhere. `enc:v1:` values from before bindings still open until the
 * one-off reseal (`npm run cli -- secrets reseal`) rewrites them.
 */
import { type Binding, SecretBox } from '../crypto/envelope';
import type { WebhookItem } from './model';

/** @public read by the reseal test through the module namespace */
export const WEBHOOK_SECRET_PURPOSE = 'webhook-secret';

const box = new SecretBox(WEBHOOK_SECRET_PURPOSE, undefined, { legacyPurpose: WEBHOOK_SECRET_PURPOSE });

const bindingOf = (webhookId: number): Binding => ({ owner: `webhook-${webhookId}`, field: 'signingSecret' });

/** The signing secret of webhook `webhookId`, sealed for it. */
export function sealWebhookSecret(webhookId: number, secret: string): Promise<string> {
  return box.encrypt(secret, bindingOf(webhookId));
}

/** The signing secret sealed for webhook `webhookId` (`UnreadableCiphertextError` if it was not). */
export function openWebhookSecret(webhookId: number, sealed: string): Promise<string> {
  return box.decrypt(sealed, bindingOf(webhookId));
}

/**
 * The secrets a request is signed with now, newest first: the current one, and the previous one
 * while a rotation's overlap window lasts. Both are sealed for the webhook as its signing secret
 * (a rotation moves the current value to the previous place as it is).
 */
export async function signingSecrets(
  webhook: Pick<WebhookItem, 'id' | 'secret' | 'previousSecret' | 'previousSecretExpiresAt'>,
  now = Date.now(),
): Promise<string[]> {
  const sealed = [webhook.secret];
  if (webhook.previousSecretExpiresAt !== undefined && Date.parse(webhook.previousSecretExpiresAt) > now)
    sealed.push(webhook.previousSecret);
  return Promise.all(
    sealed.filter((s): s is string => s !== undefined).map((s) => openWebhookSecret(webhook.id, s)),
  );
}
