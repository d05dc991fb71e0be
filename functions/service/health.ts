import { apiHandler } from '../../shared/edge/handler';
import { serviceContracts } from '../../shared/service/contracts';
import { assertStoreReachable } from '../../shared/store/readiness';

export const handler = apiHandler(serviceContracts['GET /health'], async () => {
  // Readiness: the function can reach its data store.
  await assertStoreReachable();
  return { body: { status: 'ok', service: 'causeway', time: new Date().toISOString() } };
});
