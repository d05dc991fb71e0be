import { apiHandler } from '../../shared/edge/handler';
import { integrationContracts, operationResult } from '../../shared/integrations/api/contracts';
import { updateIntegration } from '../../shared/integrations/api/update';

export const handler = apiHandler(
  integrationContracts['PUT /integrations/{id}'],
  async ({ params, query, body }) => operationResult(await updateIntegration(params.id, body, query)),
);
