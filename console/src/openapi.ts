/** The served OpenAPI document (public route), for the per-type schemas the forms are built from. */
import type { Schema } from './schema-form';

let document: Promise<Schema> | undefined;

function openapiDocument(): Promise<Schema> {
  document ??= fetch('/openapi.json').then((r) => r.json() as Promise<Schema>);
  return document;
}

/** The create body's variants: one object schema per platform type. */
export async function typeSchemas(): Promise<Map<string, Schema>> {
  const doc = await openapiDocument();
  const body = doc.paths['/integrations'].post.requestBody.content['application/json'].schema as Schema;
  const out = new Map<string, Schema>();
  for (const alt of (body.oneOf ?? body.anyOf ?? []) as Schema[]) {
    const type = alt.properties?.type?.const;
    if (typeof type === 'string') out.set(type, alt);
  }
  return out;
}
