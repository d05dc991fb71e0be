import { apiHandler } from '../../../shared/edge/handler';
import { scriptContracts } from '../../../shared/integrations/api/script-contracts';
import { deleteScript, scriptResult } from '../../../shared/integrations/api/scripts';

export const handler = apiHandler(
  scriptContracts['POST /integrations/{id}/scripts/delete'],
  async ({ params }) => scriptResult(await deleteScript(params.id)),
);
