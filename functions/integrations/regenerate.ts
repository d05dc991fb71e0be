import { apiHandler } from '../../shared/edge/handler';
import { serviceUrl } from '../../shared/edge/request';
import { integrationContracts } from '../../shared/integrations/api/contracts';
import { regenerateKey } from '../../shared/integrations/api/regenerate-key';

export const handler = apiHandler(
  integrationContracts['POST /integrations/{id}/regenerate'],
  async (req) => ({
    body: await regenerateKey(req.params.id, serviceUrl(req)),
  }),
);
