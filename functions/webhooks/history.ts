import { apiHandler } from '../../shared/edge/handler';
import { webhookContracts } from '../../shared/webhooks/api/contracts';
import { queryHistory } from '../../shared/webhooks/api/history';

export const handler = apiHandler(
  webhookContracts['GET /webhooks/history'],
  async ({ principal, query }) => ({
    body: await queryHistory(principal, query),
  }),
);
