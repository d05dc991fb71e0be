import { apiHandler } from '../../shared/edge/handler';
import { getOne, parseIntegrationId } from '../../shared/integrations/service';

export const handler = apiHandler(async (req) => ({ body: await getOne(parseIntegrationId(req.params.id)) }));
