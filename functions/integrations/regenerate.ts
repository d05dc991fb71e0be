import { apiHandler } from '../../shared/edge/handler';
import { serviceUrl } from '../../shared/edge/request';
import { regenerateContracts } from '../../shared/integrations/api/regenerate-contract';
import { regenerateKey } from '../../shared/integrations/api/regenerate-key';

export const handler = apiHandler(regenerateContracts['POST /integrations/{id}/regenerate'], async (req) => ({
  body: await regenerateKey(req.params.id, serviceUrl(req)),
}));
