import { apiHandler } from '../../shared/edge/handler';
import { buildOpenApiDocument } from '../../shared/openapi/document';
import { serviceContracts } from '../../shared/service/api';

// Built once per container: the document only changes with a deploy.
const document = buildOpenApiDocument();

export const handler = apiHandler(serviceContracts['GET /openapi.json'], async () => ({ body: document }));
