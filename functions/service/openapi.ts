import { apiHandler } from '../../shared/edge/handler';
import { buildOpenApiDocument } from '../../shared/openapi/document';

// Built once per container: the document only changes with a deploy.
const document = buildOpenApiDocument();

export const handler = apiHandler(async () => ({ body: document }));
