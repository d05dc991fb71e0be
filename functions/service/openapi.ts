import { apiHandler } from '../../shared/edge/handler';
import { serviceUrl } from '../../shared/edge/request';
import { FIRST_SERVER_AT, OPENAPI_TEXT } from '../../shared/openapi/served-document';
import { serviceContracts } from '../../shared/service/contracts';

// Rendered from the route table and the contracts at build time (npm run openapi -- --write),
// with one server per cataloged stage; the origin this request reached comes first. Kept as text
// and answered as text (ADR 0021): the same bytes as the document object with that server first.
export const handler = apiHandler(serviceContracts['GET /openapi.json'], async (req) => ({
  contentType: 'application/json',
  body: `${OPENAPI_TEXT.slice(0, FIRST_SERVER_AT)}${JSON.stringify({ url: serviceUrl(req), description: 'This server.' })},${OPENAPI_TEXT.slice(FIRST_SERVER_AT)}`,
}));
