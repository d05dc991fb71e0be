import { apiHandler } from '../../shared/edge/handler';
import { getStatus, parseIntegrationId } from '../../shared/integrations/service';

export const handler = apiHandler(async (req) => ({
  body: await getStatus(parseIntegrationId(req.params.id)),
}));
