import { deleteIntegrationWithDataSources } from '../../shared/data-sources/integration-delete';
import { apiHandler } from '../../shared/edge/handler';
import { integrationContracts, operationResult } from '../../shared/integrations/api/contracts';

// A force-disable also removes the integration's data sources (ADR 0016).
export const handler = apiHandler(
  integrationContracts['DELETE /integrations/{id}'],
  async ({ principal, params, query, body }) =>
    operationResult(await deleteIntegrationWithDataSources(principal, params.id, body, query)),
);
