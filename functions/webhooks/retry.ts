import { apiHandler } from '../../shared/http/handler';
import { parseWith } from '../../shared/http/validation';
import { retryHistoryRecord } from '../../shared/webhooks/delivery';
import { IdParamSchema } from '../../shared/webhooks/model';

export const handler = apiHandler(async ({ principal, params }) => {
  const { id } = parseWith(IdParamSchema, params, 'path');
  return { statusCode: 201, body: await retryHistoryRecord(principal, Number(id)) };
});
