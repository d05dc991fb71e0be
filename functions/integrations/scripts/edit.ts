import { apiHandler } from '../../../shared/edge/handler';
import { scriptContracts } from '../../../shared/integrations/api/script-contracts';
import { editScript, scriptResult } from '../../../shared/integrations/api/scripts';

export const handler = apiHandler(
  scriptContracts['POST /integrations/{id}/scripts/edit'],
  async ({ params, body }) => scriptResult(await editScript(params.id, body)),
);
