import { apiHandler } from '../../shared/edge/handler';
import { webhookContracts } from '../../shared/webhooks/api/contracts';
import { previewFilter } from '../../shared/webhooks/api/filter-preview';

export const handler = apiHandler(
  webhookContracts['POST /webhooks/filters/preview'],
  async ({ principal, body }) => ({ body: await previewFilter(principal, body) }),
);
