import { apiHandler } from '../../shared/edge/handler';
import { webhookContracts } from '../../shared/webhooks/api';
import { queryHistory } from '../../shared/webhooks/history';

export const handler = apiHandler(
  webhookContracts['GET /webhooks/history'],
  async ({ principal, query }) => ({
    body: await queryHistory(principal, query),
  }),
);
