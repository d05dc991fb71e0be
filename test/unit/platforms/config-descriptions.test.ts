/**
 * Every configuration field of every platform type says what it is for: the console labels and
 * explains each field from these descriptions (form and detail page), and a typed client shows
 * them as docs. Read from the committed OpenAPI document, which another test keeps current.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OPENAPI_FILE } from '../../../shared/openapi/document';
import { INTEGRATION_TYPES } from '../../../shared/platforms';

type Schema = Record<string, unknown> & {
  $ref?: string;
  properties?: Record<string, Schema>;
  oneOf?: Schema[];
  anyOf?: Schema[];
};

const doc = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8'));
const resolve = (s: Schema): Schema =>
  s.$ref ? doc.components.schemas[s.$ref.split('/').pop() as string] : s;

/** The paths of properties (below `path`) that have no description; constants are exempt. */
function undescribed(schema: Schema, path: string): string[] {
  const s = resolve(schema);
  const out = [...(s.oneOf ?? s.anyOf ?? [])].flatMap((variant) => undescribed(variant, path));
  for (const [name, raw] of Object.entries(s.properties ?? {})) {
    const prop = resolve(raw);
    if (prop.const !== undefined) continue;
    if (!raw.description && !prop.description) out.push(`${path}.${name}`);
    if (prop.properties || prop.oneOf || prop.anyOf) out.push(...undescribed(prop, `${path}.${name}`));
  }
  return [...new Set(out)];
}

describe('platform configuration fields', () => {
  const body = resolve(doc.paths['/integrations'].post.requestBody.content['application/json'].schema);
  const variants = new Map(
    [...(body.oneOf ?? body.anyOf ?? [])].map((v) => [
      ((v.properties?.type ?? {}) as Schema).const as string,
      v,
    ]),
  );

  it.each(INTEGRATION_TYPES)('%s: every config field has a description', (type) => {
    const variant = variants.get(type);
    expect(variant, `${type} in POST /integrations`).toBeDefined();
    const config = variant?.properties?.config;
    expect(config ? undescribed(config, 'config') : []).toEqual([]);
  });
});
