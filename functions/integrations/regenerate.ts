import { apiHandler } from '../../shared/edge/handler';
import { serviceUrl } from '../../shared/integrations/http';
import { parseIntegrationId, regenerateKey } from '../../shared/integrations/service';

export const handler = apiHandler(async (req) => ({
  body: await regenerateKey(parseIntegrationId(req.params.id), serviceUrl(req)),
}));
