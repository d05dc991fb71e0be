import { apiHandler } from '../../shared/edge/handler';
import { webhookContracts } from '../../shared/webhooks/api';
import { getWebhook } from '../../shared/webhooks/service';

export const handler = apiHandler(webhookContracts['GET /webhooks/{id}'], async ({ principal, params }) => ({
  body: await getWebhook(principal, params.id),
}));
