import { apiHandler } from '../../../shared/edge/handler';
import { scriptContracts } from '../../../shared/integrations/api/script-contracts';
import { generateScript, scriptResult } from '../../../shared/integrations/api/scripts';

export const handler = apiHandler(scriptContracts['POST /integrations/scripts/cleanup'], async ({ body }) =>
  scriptResult(await generateScript('cleanup', body)),
);
