import { apiHandler } from '../../shared/edge/handler';
import { queryHistory } from '../../shared/webhooks/api/history';
import { historyContracts } from '../../shared/webhooks/api/history-contract';

export const handler = apiHandler(
  historyContracts['GET /webhooks/history'],
  async ({ principal, query }) => ({
    body: await queryHistory(principal, query),
  }),
);
