import { apiHandler } from '../../shared/http/handler';

export const handler = apiHandler(async ({ principal }) => ({ body: principal }));
