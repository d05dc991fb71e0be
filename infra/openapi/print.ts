/**
 * `npm run openapi` prints the OpenAPI document; `npm run openapi -- --write` writes it to
 * `shared/openapi/openapi.json`, the file the `GET /openapi.json` function serves (generated
 * here rather than at cold start, so the function bundles neither zod-openapi nor every
 * capability's schemas), and the typed client's types to `shared/openapi/api-types.ts`. A unit
 * test fails when either file is out of date.
 */
import { writeFileSync } from 'node:fs';
import { OPENAPI_FILE, renderOpenApiDocument } from '../../shared/openapi/document';
import { CLIENT_TYPES_FILE, renderClientTypes } from './client-types';
import { stageServers } from './servers';

const document = renderOpenApiDocument(stageServers());
if (process.argv.includes('--write')) {
  writeFileSync(OPENAPI_FILE, document);
  process.stderr.write(`wrote ${OPENAPI_FILE}\n`);
  writeFileSync(CLIENT_TYPES_FILE, await renderClientTypes(document));
  process.stderr.write(`wrote ${CLIENT_TYPES_FILE}\n`);
} else process.stdout.write(document);
