/**
 * Documentation for zod/mini schemas, as classic zod's `.describe()` and `.meta()` gave it: a
 * copy of the schema registered with the metadata in zod's global registry (which the OpenAPI
 * document and the JSON Schemas read). zod/mini's own `z.describe()` / `z.meta()` are checks
 * instead, and checks travel with every copy of a schema: `z.extend(Record, …)` would carry
 * `Record`'s component id into the extended schema (two components with one id) and refuse to
 * override a key, as it does for refinements. ADR 0017.
 */
import * as z from 'zod/mini';

type Meta = Parameters<typeof z.globalRegistry.add>[1];

/** A copy of `schema` documented with `metadata` (an OpenAPI component `id`, examples, …). */
export function withMeta<T extends z.core.$ZodType>(schema: T, metadata: Meta): T {
  const copy = z.clone(schema) as T;
  z.globalRegistry.add(copy, metadata);
  return copy;
}

/** A copy of `schema` with `description`. */
export function described<T extends z.core.$ZodType>(schema: T, description: string): T {
  return withMeta(schema, { description });
}
