import { apiHandler } from '../../shared/edge/handler';
import { integrationContracts } from '../../shared/integrations/api';
import { listAll } from '../../shared/integrations/queries';

export const handler = apiHandler(integrationContracts['GET /integrations'], async () => ({
  body: await listAll(),
}));
