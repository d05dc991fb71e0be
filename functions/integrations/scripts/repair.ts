import { apiHandler } from '../../../shared/edge/handler';
import { scriptContracts } from '../../../shared/integrations/api/script-contracts';
import { repairScript, scriptResult } from '../../../shared/integrations/api/scripts';

export const handler = apiHandler(
  scriptContracts['POST /integrations/{id}/scripts/repair'],
  async ({ params }) => scriptResult(await repairScript(params.id)),
);
