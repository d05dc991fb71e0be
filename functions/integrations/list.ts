import { apiHandler } from '../../shared/edge/handler';
import { listAll } from '../../shared/integrations/service';

export const handler = apiHandler(async () => ({ body: await listAll() }));
