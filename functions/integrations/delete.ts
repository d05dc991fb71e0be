import { apiHandler } from '../../shared/edge/handler';
import { JSON_OR_YAML } from '../../shared/edge/yaml';
import { deleteQuery, operationResult } from '../../shared/integrations/http';
import { deleteIntegration, parseIntegrationId } from '../../shared/integrations/service';

export const handler = apiHandler(
  async (req) =>
    operationResult(await deleteIntegration(parseIntegrationId(req.params.id), req.body, deleteQuery(req))),
  { bodyFormats: JSON_OR_YAML },
);
