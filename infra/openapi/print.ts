/**
 * `npm run openapi` prints the OpenAPI document; `npm run openapi -- --write` writes it to
 * `shared/openapi/openapi.json` and the same document as compact text in `served-document.json`
 * (with `served-document.ts`, its URL and the offset of its servers), which the
 * `GET /openapi.json` function serves (generated
 * here rather than at cold start, so the function bundles neither zod-openapi nor every
 * capability's schemas), the typed client's types to `shared/openapi/api-types.ts`, and the
 * table of filter payload fields in docs/webhooks.md (./filter-fields.ts). A unit test fails when
 * any of them is out of date.
 */
import { writeFileSync } from 'node:fs';
import {
  OPENAPI_FILE,
  renderOpenApiDocument,
  renderServedDocument,
  SERVED_DOCUMENT_FILE,
  SERVED_DOCUMENT_MODULE,
} from '../../shared/openapi/document';
import { CLIENT_TYPES_FILE, renderClientTypes } from './client-types';
import { WEBHOOKS_DOC, writeFilterFields } from './filter-fields';
import { stageServers } from './servers';

const document = renderOpenApiDocument(stageServers());
if (process.argv.includes('--write')) {
  writeFileSync(OPENAPI_FILE, document);
  process.stderr.write(`wrote ${OPENAPI_FILE}\n`);
  const served = renderServedDocument(document);
  writeFileSync(SERVED_DOCUMENT_FILE, served.text);
  writeFileSync(SERVED_DOCUMENT_MODULE, served.module);
  process.stderr.write(`wrote ${SERVED_DOCUMENT_FILE} and ${SERVED_DOCUMENT_MODULE}\n`);
  writeFileSync(CLIENT_TYPES_FILE, await renderClientTypes(document));
  process.stderr.write(`wrote ${CLIENT_TYPES_FILE}\n`);
  writeFilterFields();
  process.stderr.write(`wrote the filter fields of ${WEBHOOKS_DOC}\n`);
} else process.stdout.write(document);
