import { apiHandler } from '../../shared/edge/handler';
import { JSON_OR_YAML } from '../../shared/edge/yaml';
import { dryRunQuery, operationResult } from '../../shared/integrations/http';
import { parseIntegrationId, updateIntegration } from '../../shared/integrations/service';

export const handler = apiHandler(
  async (req) =>
    operationResult(await updateIntegration(parseIntegrationId(req.params.id), req.body, dryRunQuery(req))),
  { bodyFormats: JSON_OR_YAML },
);
