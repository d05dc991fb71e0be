import { apiHandler } from '../../shared/edge/handler';
import { validActions } from '../../shared/notifications/catalogue';

export const handler = apiHandler(async () => ({ body: validActions() }));
