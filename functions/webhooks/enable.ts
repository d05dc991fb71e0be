import { apiHandler } from '../../shared/edge/handler';
import { serviceUrl } from '../../shared/edge/request';
import { webhookContracts } from '../../shared/webhooks/api/contracts';
import { enableWebhook } from '../../shared/webhooks/api/status';

export const handler = apiHandler(webhookContracts['POST /webhooks/{id}/enable'], async (req) => ({
  body: await enableWebhook(req.principal, req.params.id, serviceUrl(req)),
}));
