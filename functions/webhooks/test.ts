import { apiHandler } from '../../shared/edge/handler';
import { webhookContracts } from '../../shared/webhooks/api/contracts';
import { requestTestSend } from '../../shared/webhooks/api/test-send';

export const handler = apiHandler(
  webhookContracts['POST /webhooks/{id}/test'],
  async ({ principal, params, body }) => ({
    statusCode: 201,
    body: await requestTestSend(principal, params.id, body?.notificationType),
  }),
);
