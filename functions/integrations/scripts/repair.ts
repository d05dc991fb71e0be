import { apiHandler } from '../../../shared/edge/handler';
import { scriptContracts } from '../../../shared/integrations/script-api';
import { repairScript, scriptResult } from '../../../shared/integrations/scripts';

export const handler = apiHandler(
  scriptContracts['POST /integrations/{id}/scripts/repair'],
  async ({ params }) => scriptResult(await repairScript(params.id)),
);
