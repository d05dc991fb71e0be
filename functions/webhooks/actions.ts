import { apiHandler } from '../../shared/edge/handler';
import { validActions } from '../../shared/notifications/catalog';
import { notificationContracts } from '../../shared/notifications/contracts';

export const handler = apiHandler(notificationContracts['GET /webhooks/actions'], async () => ({
  body: validActions(),
}));
