import { readFileSync } from 'node:fs';
import SwaggerParser from '@apidevtools/swagger-parser';
import { describe, expect, it } from 'vitest';
import { CLIENT_TYPES_FILE, renderClientTypes } from '../../../infra/openapi/client-types';
import { WEBHOOKS_DOC, withFilterFields } from '../../../infra/openapi/filter-fields';
import { stageServers } from '../../../infra/openapi/servers';
import {
  OPENAPI_FILE,
  renderOpenApiDocument,
  renderServedDocument,
  SERVED_DOCUMENT_FILE,
  SERVED_DOCUMENT_MODULE,
} from '../../../shared/openapi/document';
import { FIRST_SERVER_AT, servedDocumentPath } from '../../../shared/openapi/served-document';

describe('the served OpenAPI document', () => {
  it('is up to date with the route table and contracts (regenerate: npm run openapi -- --write)', () => {
    expect(readFileSync(OPENAPI_FILE, 'utf8')).toBe(renderOpenApiDocument(stageServers()));
  });

  it('is served from a text file up to date with it (regenerate: npm run openapi -- --write)', () => {
    const json = readFileSync(OPENAPI_FILE, 'utf8');
    const served = renderServedDocument(json);
    expect(readFileSync(SERVED_DOCUMENT_FILE, 'utf8')).toBe(served.text);
    expect(readFileSync(SERVED_DOCUMENT_MODULE, 'utf8')).toBe(served.module);
    // What the function answers: the document with the server the request reached first.
    const text = readFileSync(servedDocumentPath(), 'utf8');
    const here = { url: 'https://example.test', description: 'This server.' };
    const document = JSON.parse(json) as { servers: unknown[] };
    expect(`${text.slice(0, FIRST_SERVER_AT)}${JSON.stringify(here)},${text.slice(FIRST_SERVER_AT)}`).toBe(
      JSON.stringify({ ...document, servers: [here, ...document.servers] }),
    );
  });

  it('has a typed client whose types are up to date (regenerate: npm run openapi -- --write)', async () => {
    expect(readFileSync(CLIENT_TYPES_FILE, 'utf8')).toBe(
      await renderClientTypes(readFileSync(OPENAPI_FILE, 'utf8')),
    );
  });

  it('has the filter payload fields of docs/webhooks.md up to date with the catalog (regenerate: npm run openapi -- --write)', () => {
    const doc = readFileSync(WEBHOOKS_DOC, 'utf8');
    expect(withFilterFields(doc)).toBe(doc);
    expect(doc).toContain('| `webhookFailing` | `metadata.targetUser`, `metadata.webhookId`');
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    await SwaggerParser.validate(JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')));
  });

  it('lists a server for every cataloged stage', () => {
    const document = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')) as { servers: { description: string }[] };
    const stages = Object.keys(JSON.parse(readFileSync('cdk.json', 'utf8')).context['causeway:stages']);
    expect(stages.length).toBeGreaterThan(1);
    for (const stage of stages) {
      expect(
        document.servers.some((s) => s.description.startsWith(`Stage ${stage}:`)),
        stage,
      ).toBe(true);
    }
  });
});
