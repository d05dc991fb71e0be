import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OPENAPI_FILE, renderOpenApiDocument } from '../../../shared/openapi/document';

describe('the served OpenAPI document', () => {
  it('is up to date with the route table and contracts (regenerate: npm run openapi -- --write)', () => {
    expect(readFileSync(OPENAPI_FILE, 'utf8')).toBe(renderOpenApiDocument());
  });
});
