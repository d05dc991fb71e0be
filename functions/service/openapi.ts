import { apiHandler } from '../../shared/edge/handler';
import { serviceUrl } from '../../shared/edge/request';
import { FIRST_SERVER_AT, servedDocumentPath } from '../../shared/openapi/served-document';
import { serviceContracts } from '../../shared/service/contracts';

// Rendered from the route table and the contracts at build time (npm run openapi -- --write),
// with one server per cataloged stage; the origin this request reached comes first. Kept as text
// in a file beside the bundle, read on the first request (ADR 0021), and answered as text: the
// same bytes as the document object with that server first. `node:fs` is taken on that request
// too: an ESM import of a built-in builds its module namespace at init.
let text: string | undefined;

export const handler = apiHandler(serviceContracts['GET /openapi.json'], async (req) => {
  text ??= process.getBuiltinModule('node:fs').readFileSync(servedDocumentPath(), 'utf8');
  return {
    contentType: 'application/json',
    body: `${text.slice(0, FIRST_SERVER_AT)}${JSON.stringify({ url: serviceUrl(req), description: 'This server.' })},${text.slice(FIRST_SERVER_AT)}`,
  };
});
