/**
 * The box webhook secrets are sealed in (envelope encryption, shared/crypto/envelope.ts): the
 * API seals a secret when a webhook is created, the delivery pipeline opens it to sign a
 * request. Neither side depends on the other for it.
 *
 * A secret is bound to its webhook (docs/adr/0008): sealed for another webhook, it does not open.
 * It is not bound to the URL: the secret never travels (only a signature does), and the owner
 * may point the webhook elsewhere. `enc:v1:` values from before bindings still open until the
 * one-off reseal (`npm run cli -- secrets reseal`) rewrites them.
 */
import { type Binding, SecretBox } from '../crypto/envelope';

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
