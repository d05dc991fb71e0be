import { apiHandler } from '../../shared/edge/handler';
import { webhookContracts } from '../../shared/webhooks/api/contracts';
import { requestRetry } from '../../shared/webhooks/api/retry';

export const handler = apiHandler(
  webhookContracts['POST /webhooks/history/retry/{id}'],
  async ({ principal, params }) => ({ statusCode: 201, body: await requestRetry(principal, params.id) }),
);
