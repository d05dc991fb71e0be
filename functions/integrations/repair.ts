import { apiHandler } from '../../shared/edge/handler';
import { integrationContracts, operationResult } from '../../shared/integrations/api/contracts';
import { repairIntegration } from '../../shared/integrations/api/repair';

export const handler = apiHandler(
  integrationContracts['POST /integrations/{id}/repair'],
  async ({ params }) => operationResult(await repairIntegration(params.id)),
);
