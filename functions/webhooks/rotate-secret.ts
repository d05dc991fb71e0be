import { apiHandler } from '../../shared/edge/handler';
import { serviceUrl } from '../../shared/edge/request';
import { webhookContracts } from '../../shared/webhooks/api/contracts';
import { rotateSecret } from '../../shared/webhooks/api/secrets';

export const handler = apiHandler(webhookContracts['POST /webhooks/{id}/secret/rotate'], async (req) => ({
  body: await rotateSecret(req.principal, req.params.id, req.body, serviceUrl(req)),
}));
