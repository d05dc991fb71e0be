import { apiHandler } from '../../../shared/edge/handler';
import { generateScript, scriptAnswer, scriptContracts } from '../../../shared/platforms/api';

export const handler = apiHandler(
  scriptContracts['POST /integrations/scripts/initial-create'],
  async ({ body, headers }) => scriptAnswer(generateScript('initial-create', body), headers.accept),
);
