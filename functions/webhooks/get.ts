import { apiHandler } from '../../shared/edge/handler';
import { parseWith } from '../../shared/edge/validation';
import { IdParamSchema } from '../../shared/webhooks/model';
import { getWebhook } from '../../shared/webhooks/service';

export const handler = apiHandler(async ({ principal, params }) => {
  const { id } = parseWith(IdParamSchema, params, 'path');
  return { body: await getWebhook(principal, Number(id)) };
});
