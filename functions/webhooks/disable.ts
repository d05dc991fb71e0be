import { apiHandler } from '../../shared/edge/handler';
import { webhookContracts } from '../../shared/webhooks/api/contracts';
import { disableWebhook } from '../../shared/webhooks/api/status';

export const handler = apiHandler(
  webhookContracts['POST /webhooks/{id}/disable'],
  async ({ principal, params, body }) => ({ body: await disableWebhook(principal, params.id, body?.reason) }),
);
