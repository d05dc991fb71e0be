import { apiHandler } from '../../../shared/edge/handler';
import { generateScript, scriptAnswer, scriptContracts } from '../../../shared/platforms/api';

export const handler = apiHandler(
  scriptContracts['POST /integrations/scripts/post-cleanup'],
  async ({ body, headers }) => scriptAnswer(generateScript('post-cleanup', body), headers.accept),
);
