import { apiHandler } from '../../shared/http/handler';
import { JSON_OR_YAML } from '../../shared/http/yaml';
import { dryRunQuery, operationResult, serviceUrl } from '../../shared/integrations/http';
import { createIntegration } from '../../shared/integrations/service';

export const handler = apiHandler(
  async (req) =>
    operationResult(await createIntegration(req.body, { ...dryRunQuery(req), serviceUrl: serviceUrl(req) })),
  { bodyFormats: JSON_OR_YAML },
);
