import { apiHandler } from '../../shared/edge/handler';
import { serviceContracts } from '../../shared/service/api';

export const handler = apiHandler(serviceContracts['GET /me'], async ({ principal }) => ({
  body: principal,
}));
