/**
 * The served OpenAPI document (public route): the per-type schemas the forms are built from, and
 * what the document says of each type beyond its schema (`x-automatic-setup`, `x-updatable`,
 * `x-non-editable`, `x-required-when-automatic`, `x-host-field`, `x-name-field`,
 * `x-issues-api-key`; shared/platforms/index.ts writes them from each type's module).
 */
import type { Schema } from './schema-form';

let document: Promise<Schema> | undefined;

function openapiDocument(): Promise<Schema> {
  document ??= fetch('/openapi.json').then((r) => r.json() as Promise<Schema>);
  return document;
}

/** A schema, or the component a `$ref` in it names (the create body is the IntegrationPayload component). */
function resolved(doc: Schema, schema: Schema): Schema {
  const ref = typeof schema?.$ref === 'string' ? schema.$ref : undefined;
  return ref ? (doc.components?.schemas?.[ref.split('/').pop() as string] ?? schema) : schema;
}

/** The create body's variants: one object schema per platform type. */
export async function typeSchemas(): Promise<Map<string, Schema>> {
  const doc = await openapiDocument();
  const body = resolved(doc, doc.paths['/integrations'].post.requestBody.content['application/json'].schema);
  const out = new Map<string, Schema>();
  for (const alt of (body.oneOf ?? body.anyOf ?? []) as Schema[]) {
    const type = alt.properties?.type?.const;
    if (typeof type === 'string') out.set(type, alt);
  }
  return out;
}

/** The integration types data sources are registered under (the `type` enum of POST /data-sources). */
export async function dataSourceTypes(): Promise<Set<string>> {
  const doc = await openapiDocument();
  const body = resolved(
    doc,
    doc.paths['/data-sources']?.post?.requestBody?.content['application/json'].schema ?? {},
  );
  return new Set(
    ((body.properties?.type?.enum ?? []) as unknown[]).filter((t) => typeof t === 'string') as string[],
  );
}

/** The privileged credentials a DELETE takes, per type (`x-integration-type`; `x-required`). */
export async function deleteSchemas(): Promise<Map<string, Schema>> {
  const doc = await openapiDocument();
  const body = doc.paths['/integrations/{id}'].delete.requestBody?.content['application/json'].schema as
    | Schema
    | undefined;
  const out = new Map<string, Schema>();
  for (const alt of (body?.anyOf ?? body?.oneOf ?? []) as Schema[]) {
    const type = alt['x-integration-type'];
    if (typeof type === 'string') out.set(type, alt);
  }
  return out;
}

/** The document's list of config paths under `key` (e.g. `x-non-editable`) as form field ids. */
export function configPaths(typeSchema: Schema | undefined, key: string, prefix = 'config'): Set<string> {
  const paths = (typeSchema?.[key] ?? []) as string[];
  return new Set(paths.map((p) => `${prefix}.${p}`));
}
