import { apiHandler } from '../../shared/edge/handler';
import { webhookContracts } from '../../shared/webhooks/api/contracts';
import { createWebhooks } from '../../shared/webhooks/api/webhooks';

export const handler = apiHandler(webhookContracts['POST /webhooks'], async ({ principal, body }) => ({
  statusCode: 201,
  body: await createWebhooks(principal, body.webhooks),
}));
