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
    // The previous secret of a rotation's overlap window is the webhook's signing secret too.
    for (const field of ['secret', 'previousSecret'] as const) {
      const sealed = webhook[field];
      if (!SecretBox.isLegacy(sealed)) continue;
      const secret = await openWebhookSecret(webhook.id, sealed);
      // A webhook deleted or rotated meanwhile has nothing to reseal in that place.
      if (await replaceWebhookSecret(webhook.id, field, sealed, await sealWebhookSecret(webhook.id, secret)))
        report.resealed++;
    }
  }
  return report;
}
