import { apiHandler } from '../../shared/edge/handler';
import { serviceUrl } from '../../shared/edge/request';
import { webhookContracts } from '../../shared/webhooks/api/contracts';
import { listWebhooks } from '../../shared/webhooks/api/webhooks';

export const handler = apiHandler(webhookContracts['GET /webhooks'], async (req) => ({
  body: await listWebhooks(req.principal, req.query, serviceUrl(req)),
}));
