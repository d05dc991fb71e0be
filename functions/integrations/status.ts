import { apiHandler } from '../../shared/edge/handler';
import { integrationContracts } from '../../shared/integrations/api/contracts';
import { getStatus } from '../../shared/integrations/api/queries';

export const handler = apiHandler(
  integrationContracts['GET /integrations/{id}/status'],
  async ({ params }) => ({
    body: await getStatus(params.id),
  }),
);
