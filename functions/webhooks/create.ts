import { apiHandler } from '../../shared/edge/handler';
import { webhookContracts } from '../../shared/webhooks/api';
import { createWebhooks } from '../../shared/webhooks/service';

export const handler = apiHandler(webhookContracts['POST /webhooks'], async ({ principal, body }) => ({
  statusCode: 201,
  body: await createWebhooks(principal, body.webhooks),
}));
