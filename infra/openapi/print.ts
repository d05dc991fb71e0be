import { buildOpenApiDocument } from '../../shared/openapi/document';

process.stdout.write(`${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`);
