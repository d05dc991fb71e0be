import { apiHandler } from '../../shared/edge/handler';
import { webhookContracts } from '../../shared/webhooks/api/contracts';
import { startRecover } from '../../shared/webhooks/api/recover';

export const handler = apiHandler(
  webhookContracts['POST /webhooks/{id}/recover'],
  async ({ principal, params, query, body }) => startRecover(principal, params.id, body, query.dryRun),
);
