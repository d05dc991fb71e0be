import { apiHandler } from '../../../shared/edge/handler';
import { scriptContracts } from '../../../shared/integrations/script-api';
import { generateScript, scriptResult } from '../../../shared/integrations/scripts';

export const handler = apiHandler(
  scriptContracts['POST /integrations/scripts/post-cleanup'],
  async ({ body }) => scriptResult(await generateScript('post-cleanup', body)),
);
