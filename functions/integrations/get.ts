import { apiHandler } from '../../shared/edge/handler';
import { integrationContracts } from '../../shared/integrations/api/contracts';
import { getOne } from '../../shared/integrations/api/queries';

export const handler = apiHandler(integrationContracts['GET /integrations/{id}'], async ({ params }) => ({
  body: await getOne(params.id),
}));
