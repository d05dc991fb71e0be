import { apiHandler } from '../../shared/edge/handler';
import { serviceUrl } from '../../shared/edge/request';
import { webhookContracts } from '../../shared/webhooks/api/contracts';
import { updateWebhook } from '../../shared/webhooks/api/update';

export const handler = apiHandler(webhookContracts['PATCH /webhooks/{id}'], async (req) => ({
  body: await updateWebhook(req.principal, req.params.id, req.body, serviceUrl(req)),
}));
