import { apiHandler } from '../../shared/http/handler';
import { listWebhooks } from '../../shared/webhooks/service';

export const handler = apiHandler(async ({ principal }) => ({ body: await listWebhooks(principal) }));
