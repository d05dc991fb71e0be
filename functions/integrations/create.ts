import { apiHandler } from '../../shared/edge/handler';
import { JSON_OR_YAML } from '../../shared/edge/yaml';
import { dryRunQuery, operationResult, serviceUrl } from '../../shared/integrations/http';
import { createIntegration } from '../../shared/integrations/service';

export const handler = apiHandler(
  async (req) =>
    operationResult(await createIntegration(req.body, { ...dryRunQuery(req), serviceUrl: serviceUrl(req) })),
  { bodyFormats: JSON_OR_YAML },
);
