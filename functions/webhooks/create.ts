import { apiHandler } from '../../shared/edge/handler';
import { serviceUrl } from '../../shared/edge/request';
import { webhookContracts } from '../../shared/webhooks/api/contracts';
import { createWebhooks } from '../../shared/webhooks/api/webhooks';

export const handler = apiHandler(webhookContracts['POST /webhooks'], async (req) => ({
  statusCode: 201,
  body: await createWebhooks(req.principal, req.body.webhooks, serviceUrl(req)),
}));
