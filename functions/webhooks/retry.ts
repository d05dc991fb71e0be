import { apiHandler } from '../../shared/edge/handler';
import { parseWith } from '../../shared/edge/validation';
import { IdParamSchema } from '../../shared/webhooks/model';
import { requestRetry } from '../../shared/webhooks/retry-request';

export const handler = apiHandler(async ({ principal, params }) => {
  const { id } = parseWith(IdParamSchema, params, 'path');
  return { statusCode: 201, body: await requestRetry(principal, Number(id)) };
});
