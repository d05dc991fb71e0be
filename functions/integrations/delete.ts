import { apiHandler } from '../../shared/edge/handler';
import { integrationContracts, operationResult } from '../../shared/integrations/api/contracts';
import { deleteIntegration } from '../../shared/integrations/api/delete';

export const handler = apiHandler(
  integrationContracts['DELETE /integrations/{id}'],
  async ({ params, query, body }) => operationResult(await deleteIntegration(params.id, body, query)),
);
