import { apiHandler } from '../../../shared/edge/handler';
import { deleteScript, scriptAnswer, scriptContracts } from '../../../shared/platforms/api';

export const handler = apiHandler(
  scriptContracts['POST /integrations/{id}/scripts/delete'],
  async ({ params, headers }) => scriptAnswer(await deleteScript(params.id), headers.accept),
);
