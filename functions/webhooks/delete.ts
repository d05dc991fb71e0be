import { apiHandler } from '../../shared/edge/handler';
import { webhookContracts } from '../../shared/webhooks/api';
import { deleteWebhook } from '../../shared/webhooks/service';

export const handler = apiHandler(
  webhookContracts['DELETE /webhooks/{id}'],
  async ({ principal, params }) => ({
    body: await deleteWebhook(principal, params.id),
  }),
);
