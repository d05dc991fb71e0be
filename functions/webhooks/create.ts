import { apiHandler } from '../../shared/edge/handler';
import { parseWith } from '../../shared/edge/validation';
import { CreateWebhooksBodySchema } from '../../shared/webhooks/model';
import { createWebhooks } from '../../shared/webhooks/service';

export const handler = apiHandler(async ({ principal, body }) => {
  const { webhooks } = parseWith(CreateWebhooksBodySchema, body, 'request body');
  return { statusCode: 201, body: await createWebhooks(principal, webhooks) };
});
