import { apiHandler } from '../../shared/edge/handler';
import { integrationContracts } from '../../shared/integrations/api/contracts';
import { listAll } from '../../shared/integrations/api/queries';

export const handler = apiHandler(integrationContracts['GET /integrations'], async () => ({
  body: await listAll(),
}));
