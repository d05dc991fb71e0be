import { apiHandler } from '../../shared/edge/handler';
import { webhookContracts } from '../../shared/webhooks/api/contracts';
import { deleteWebhook } from '../../shared/webhooks/api/webhooks';

export const handler = apiHandler(
  webhookContracts['DELETE /webhooks/{id}'],
  async ({ principal, params }) => ({
    body: await deleteWebhook(principal, params.id),
  }),
);
