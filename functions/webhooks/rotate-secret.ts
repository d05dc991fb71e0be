import { apiHandler } from '../../shared/edge/handler';
import { webhookContracts } from '../../shared/webhooks/api/contracts';
import { rotateSecret } from '../../shared/webhooks/api/secrets';

export const handler = apiHandler(
  webhookContracts['POST /webhooks/{id}/secret/rotate'],
  async ({ principal, params, body }) => ({ body: await rotateSecret(principal, params.id, body) }),
);
