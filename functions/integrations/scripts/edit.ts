import { apiHandler } from '../../../shared/edge/handler';
import { scriptContracts } from '../../../shared/integrations/script-api';
import { editScript, scriptResult } from '../../../shared/integrations/scripts';

export const handler = apiHandler(
  scriptContracts['POST /integrations/{id}/scripts/edit'],
  async ({ params, body }) => scriptResult(await editScript(params.id, body)),
);
