import { apiHandler } from '../../shared/edge/handler';
import { listWebhooks } from '../../shared/webhooks/service';

export const handler = apiHandler(async ({ principal }) => ({ body: await listWebhooks(principal) }));
