import { apiHandler } from '../../shared/edge/handler';
import { validActions } from '../../shared/notifications/catalogue';
import { webhookContracts } from '../../shared/webhooks/api/contracts';

export const handler = apiHandler(webhookContracts['GET /webhooks/actions'], async () => ({
  body: validActions(),
}));
