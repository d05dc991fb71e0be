import { apiHandler } from '../../shared/edge/handler';
import { integrationContracts, operationResult } from '../../shared/integrations/api';
import { repairIntegration } from '../../shared/integrations/repair';

export const handler = apiHandler(
  integrationContracts['POST /integrations/{id}/repair'],
  async ({ params }) => operationResult(await repairIntegration(params.id)),
);
