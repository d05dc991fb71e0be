import { apiHandler } from '../../shared/edge/handler';
import { webhookContracts } from '../../shared/webhooks/api/contracts';
import { enableWebhook } from '../../shared/webhooks/api/status';

export const handler = apiHandler(
  webhookContracts['POST /webhooks/{id}/enable'],
  async ({ principal, params }) => ({ body: await enableWebhook(principal, params.id) }),
);
