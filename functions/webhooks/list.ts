import { apiHandler } from '../../shared/edge/handler';
import { webhookContracts } from '../../shared/webhooks/api';
import { listWebhooks } from '../../shared/webhooks/service';

export const handler = apiHandler(webhookContracts['GET /webhooks'], async ({ principal }) => ({
  body: await listWebhooks(principal),
}));
