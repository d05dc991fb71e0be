/**
 * `secrets reseal`: rewrites every secret sealed before envelope bindings (`enc:v1:`) bound to
 * its record, field and (for integrations) connection (docs/adr/0008). Idempotent: run it once
 * per deployed stage after the deploy that brings bindings; the local cloud runs it at start.
 */
import { type ResealReport, resealIntegrationSecrets } from '../integrations/reseal-secrets';
import { resealWebhookSecrets, type WebhookResealReport } from '../webhooks/reseal-secrets';

export interface SecretsResealReport {
  integrations: ResealReport;
  webhooks: WebhookResealReport;
}

export async function resealSecrets(): Promise<SecretsResealReport> {
  return { integrations: await resealIntegrationSecrets(), webhooks: await resealWebhookSecrets() };
}
