import { apiHandler } from '../../shared/edge/handler';
import { webhookContracts } from '../../shared/webhooks/api';
import { requestRetry } from '../../shared/webhooks/retry-request';

export const handler = apiHandler(
  webhookContracts['POST /webhooks/history/retry/{id}'],
  async ({ principal, params }) => ({ statusCode: 201, body: await requestRetry(principal, params.id) }),
);
