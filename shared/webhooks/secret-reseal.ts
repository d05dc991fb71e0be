/**
 * The one-off reseal of webhook secrets written before envelope bindings (docs/adr/0008): every
 * `enc:v1:` secret is opened under its old purpose and sealed again for its webhook, written
 * only if the stored value is still the one read (idempotent). Run by
 * `npm run cli -- secrets reseal` and by the local cloud at start.
 */
import { SecretBox } from '../crypto/envelope';
import { openWebhookSecret, sealWebhookSecret } from './secrets';
import { listAllWebhooks, replaceWebhookSecret } from './store/webhooks';

export interface WebhookResealReport {
  scanned: number;
  resealed: number;
}

export async function resealWebhookSecrets(): Promise<WebhookResealReport> {
  const report: WebhookResealReport = { scanned: 0, resealed: 0 };
  for (const webhook of await listAllWebhooks()) {
    report.scanned++;
    if (!SecretBox.isLegacy(webhook.secret)) continue;
    const secret = await openWebhookSecret(webhook.id, webhook.secret);
    // A webhook deleted meanwhile has nothing to reseal.
    if (await replaceWebhookSecret(webhook.id, webhook.secret, await sealWebhookSecret(webhook.id, secret)))
      report.resealed++;
  }
  return report;
}
