import { apiHandler } from '../../shared/edge/handler';

export const handler = apiHandler(async ({ principal }) => ({ body: principal }));
