import { apiHandler } from '../../../shared/edge/handler';
import { scriptContracts } from '../../../shared/integrations/api/script-contracts';
import { cleanupScript, scriptResult } from '../../../shared/integrations/api/scripts';

export const handler = apiHandler(
  scriptContracts['POST /integrations/{id}/scripts/cleanup'],
  async ({ params }) => scriptResult(await cleanupScript(params.id)),
);
