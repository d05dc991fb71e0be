import { apiHandler } from '../../shared/edge/handler';
import { serviceContracts } from '../../shared/service/contracts';

export const handler = apiHandler(serviceContracts['GET /me'], async ({ principal }) => ({
  body: principal,
}));
