import { apiHandler } from '../../shared/edge/handler';
import document from '../../shared/openapi/openapi.json' with { type: 'json' };
import { serviceContracts } from '../../shared/service/api';

// Rendered from the route table and the contracts at build time (npm run openapi -- --write).
export const handler = apiHandler(serviceContracts['GET /openapi.json'], async () => ({ body: document }));
