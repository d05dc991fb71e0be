import { apiHandler } from '../../shared/edge/handler';
import { serviceUrl } from '../../shared/edge/request';
import { webhookContracts } from '../../shared/webhooks/api/contracts';
import { getWebhook } from '../../shared/webhooks/api/webhooks';

export const handler = apiHandler(webhookContracts['GET /webhooks/{id}'], async (req) => ({
  body: await getWebhook(req.principal, req.params.id, serviceUrl(req)),
}));
