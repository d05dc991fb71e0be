import { apiHandler } from '../../shared/http/handler';
import { validActions } from '../../shared/notifications/catalogue';

export const handler = apiHandler(async () => ({ body: validActions() }));
