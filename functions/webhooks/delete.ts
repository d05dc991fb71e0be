import { apiHandler } from '../../shared/edge/handler';
import { serviceUrl } from '../../shared/edge/request';
import { webhookContracts } from '../../shared/webhooks/api/contracts';
import { deleteWebhook } from '../../shared/webhooks/api/webhooks';

export const handler = apiHandler(webhookContracts['DELETE /webhooks/{id}'], async (req) => ({
  body: await deleteWebhook(req.principal, req.params.id, serviceUrl(req)),
}));
