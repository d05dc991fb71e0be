/**
 * A type's connection identity: the config fields that say where and how the service connects
 * (hosts, ports, URLs, HTTP paths, driver and TLS arguments, identity-provider and token
 * endpoints). It is derived from the type's payload schema: every config field is a secret
 * (`secretPaths`), a setting the connection does not depend on (`settings`), or — by default,
 * so a new field cannot be forgotten — part of the connection identity.
 *
 * One rule reads it: a stored secret is reused (for the redaction placeholder) only while the
 * connection identity is unchanged, and ciphertext is bound to it (`shared/integrations/secrets.ts`).
 */
import type * as z from 'zod/mini';
import { getPath, type PlatformModule } from './module';

type Def = { type: string; [key: string]: unknown };
const defOf = (schema: unknown) => (schema as { _zod: { def: Def } })._zod.def;

/** Wrappers whose inner schema describes the value (defaults, optionals, transforms). */
const INNER: Record<string, string> = {
  default: 'innerType',
  prefault: 'innerType',
  optional: 'innerType',
  nullable: 'innerType',
  readonly: 'innerType',
  catch: 'innerType',
  nonoptional: 'innerType',
  pipe: 'in',
};

/** Every leaf path of a config schema (objects walked through unions and wrappers); arrays are leaves. */
export function leafPaths(schema: z.ZodMiniType, prefix = '', out = new Set<string>()): Set<string> {
  const def = defOf(schema);
  if (def.type === 'object') {
    for (const [key, field] of Object.entries(def.shape as Record<string, z.ZodMiniType>))
      leafPaths(field, prefix ? `${prefix}.${key}` : key, out);
  } else if (def.type === 'union') {
    for (const option of def.options as z.ZodMiniType[]) leafPaths(option, prefix, out);
  } else if (def.type in INNER) {
    leafPaths(def[INNER[def.type] as string] as z.ZodMiniType, prefix, out);
  } else if (prefix) {
    out.add(prefix);
  }
  return out;
}

/** The config schema inside a module's payload schema (undefined for types without a config). */
export function configSchemaOf(module: PlatformModule): z.ZodMiniType | undefined {
  const shape = defOf(module.payloadSchema).shape as Record<string, z.ZodMiniType> | undefined;
  return shape?.config;
}

/** Whether `path` is `covering` or lies inside it (`impersonation` covers `impersonation.role`). */
export const covers = (covering: string, path: string) =>
  path === covering || path.startsWith(`${covering}.`);

const cache = new WeakMap<PlatformModule, readonly string[]>();

/** The connection identity of a type: its config's leaf paths that are neither secrets nor settings. */
export function connectionPaths(module: PlatformModule): readonly string[] {
  let paths = cache.get(module);
  if (!paths) {
    const schema = configSchemaOf(module);
    paths = schema
      ? [...leafPaths(schema)].filter(
          (path) =>
            !module.secretPaths.some((s) => covers(s, path)) && !module.settings.some((s) => covers(s, path)),
        )
      : [];
    cache.set(module, paths);
  }
  return paths;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** The connection identity paths whose values differ between two configs (as stored: defaults applied). */
export function connectionChanges(module: PlatformModule, before: unknown, after: unknown): string[] {
  return connectionPaths(module).filter((path) => !same(getPath(before, path), getPath(after, path)));
}

/** The connection identity of a config as one canonical string (what ciphertext is bound to). */
export function connectionIdentity(module: PlatformModule, config: unknown): string {
  return JSON.stringify(connectionPaths(module).map((path) => [path, getPath(config, path) ?? null]));
}
