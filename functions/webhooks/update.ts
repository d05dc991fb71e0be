import { apiHandler } from '../../shared/edge/handler';
import { webhookContracts } from '../../shared/webhooks/api/contracts';
import { updateWebhook } from '../../shared/webhooks/api/update';

export const handler = apiHandler(
  webhookContracts['PATCH /webhooks/{id}'],
  async ({ principal, params, body }) => ({ body: await updateWebhook(principal, params.id, body) }),
);
