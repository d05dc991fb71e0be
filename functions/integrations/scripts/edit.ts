import { apiHandler } from '../../../shared/edge/handler';
import { editScript, scriptAnswer, scriptContracts } from '../../../shared/platforms/api';

export const handler = apiHandler(
  scriptContracts['POST /integrations/{id}/scripts/edit'],
  async ({ params, body, headers }) => scriptAnswer(await editScript(params.id, body), headers.accept),
);
