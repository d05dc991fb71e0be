import { buildOpenApiDocument } from '../../infra/openapi/document';
import { apiHandler } from '../../shared/http/handler';

// Built once per container: the document only changes with a deploy.
const document = buildOpenApiDocument();

export const handler = apiHandler(async () => ({ body: document }));
