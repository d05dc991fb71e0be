import { apiHandler } from '../../shared/edge/handler';
import { serviceUrl } from '../../shared/edge/request';
import { webhookContracts } from '../../shared/webhooks/api/contracts';
import { disableWebhook } from '../../shared/webhooks/api/status';

export const handler = apiHandler(webhookContracts['POST /webhooks/{id}/disable'], async (req) => ({
  body: await disableWebhook(req.principal, req.params.id, req.body?.reason, serviceUrl(req)),
}));
