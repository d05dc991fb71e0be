import { apiHandler } from '../../shared/edge/handler';
import { serviceUrl } from '../../shared/edge/request';
import document from '../../shared/openapi/openapi.json' with { type: 'json' };
import { serviceContracts } from '../../shared/service/contracts';

// Rendered from the route table and the contracts at build time (npm run openapi -- --write),
// with one server per cataloged stage; the origin this request reached comes first.
export const handler = apiHandler(serviceContracts['GET /openapi.json'], async (req) => ({
  body: {
    ...document,
    servers: [{ url: serviceUrl(req), description: 'This server.' }, ...(document.servers ?? [])],
  },
}));
