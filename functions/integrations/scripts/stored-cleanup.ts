import { apiHandler } from '../../../shared/edge/handler';
import { scriptContracts } from '../../../shared/integrations/script-api';
import { cleanupScript, scriptResult } from '../../../shared/integrations/scripts';

export const handler = apiHandler(
  scriptContracts['POST /integrations/{id}/scripts/cleanup'],
  async ({ params }) => scriptResult(await cleanupScript(params.id)),
);
