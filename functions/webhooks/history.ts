import { apiHandler } from '../../shared/edge/handler';
import { parseWith } from '../../shared/edge/validation';
import { queryHistory } from '../../shared/webhooks/history';
import { HistoryQuerySchema } from '../../shared/webhooks/model';

export const handler = apiHandler(async ({ principal, query }) => ({
  body: await queryHistory(principal, parseWith(HistoryQuerySchema, query, 'query')),
}));
