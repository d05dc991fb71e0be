import { apiHandler } from '../../shared/edge/handler';
import { notificationContracts } from '../../shared/notifications/api';
import { validActions } from '../../shared/notifications/catalogue';

export const handler = apiHandler(notificationContracts['GET /webhooks/actions'], async () => ({
  body: validActions(),
}));
