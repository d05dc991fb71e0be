/**
 * `npm run openapi` prints the OpenAPI document; `npm run openapi -- --write` writes it to
 * `shared/openapi/openapi.json`, the file the `GET /openapi.json` function serves (generated
 * here rather than at cold start, so the function bundles neither zod-openapi nor every
 * capability's schemas). A unit test fails when the file is out of date.
 */
import { writeFileSync } from 'node:fs';
import { OPENAPI_FILE, renderOpenApiDocument } from '../../shared/openapi/document';

if (process.argv.includes('--write')) {
  writeFileSync(OPENAPI_FILE, renderOpenApiDocument());
  process.stderr.write(`wrote ${OPENAPI_FILE}\n`);
} else process.stdout.write(renderOpenApiDocument());
