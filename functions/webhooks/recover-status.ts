import { apiHandler } from '../../shared/edge/handler';
import { webhookContracts } from '../../shared/webhooks/api/contracts';
import { recoverStatus } from '../../shared/webhooks/api/recover';

export const handler = apiHandler(
  webhookContracts['GET /webhooks/{id}/recover/{jobId}'],
  async ({ principal, params }) => ({ body: await recoverStatus(principal, params.id, params.jobId) }),
);
