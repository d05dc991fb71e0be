import { apiHandler } from '../../shared/edge/handler';
import { webhookContracts } from '../../shared/webhooks/api/contracts';
import { getWebhook } from '../../shared/webhooks/api/webhooks';

export const handler = apiHandler(webhookContracts['GET /webhooks/{id}'], async ({ principal, params }) => ({
  body: await getWebhook(principal, params.id),
}));
