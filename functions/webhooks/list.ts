import { apiHandler } from '../../shared/edge/handler';
import { webhookContracts } from '../../shared/webhooks/api/contracts';
import { listWebhooks } from '../../shared/webhooks/api/webhooks';

export const handler = apiHandler(webhookContracts['GET /webhooks'], async ({ principal, query }) => ({
  body: await listWebhooks(principal, query),
}));
