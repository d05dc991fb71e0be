import { apiHandler } from '../../shared/http/handler';
import { dryRunQuery, operationResult, serviceUrl } from '../../shared/integrations/http';
import { createIntegration } from '../../shared/integrations/service';

export const handler = apiHandler(
  async (req) =>
    operationResult(await createIntegration(req.body, { ...dryRunQuery(req), serviceUrl: serviceUrl(req) })),
  { bodyFormats: ['json', 'yaml'] },
);
