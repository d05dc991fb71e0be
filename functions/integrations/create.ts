import { apiHandler } from '../../shared/edge/handler';
import { serviceUrl } from '../../shared/edge/request';
import { integrationContracts, operationResult } from '../../shared/integrations/api/contracts';
import { createIntegration } from '../../shared/integrations/api/create';

export const handler = apiHandler(integrationContracts['POST /integrations'], async (req) =>
  operationResult(
    await createIntegration(req.body, { dryRun: req.query.dryRun, serviceUrl: serviceUrl(req) }),
  ),
);
