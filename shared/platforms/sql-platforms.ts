/**
 * The SQL half of a SQL type's module: `shared/platforms/<type>/sql-platform.ts`, found by the folder
 * convention (`./module.ts`) and loaded on demand. The bundler includes every type's `sql-platform.ts` in
 * the functions that import this file (script routes, connectors, workflow tasks) and in no
 * other: API functions that only need schemas and rules stay small.
 */
import { type IntegrationType, isSqlType, platforms, registeredSqlPlatform } from '.';
import { folderOf } from './module';
import type { SqlPlatform } from './sql/platform';

export async function sqlPlatformOf(type: IntegrationType): Promise<SqlPlatform> {
  const registered = registeredSqlPlatform(type);
  if (registered) return registered;
  if (!isSqlType(type)) throw new Error(`${type} is not a SQL platform`);
  const loaded = (await import(`./${folderOf(type)}/sql-platform.ts`)) as { platform?: SqlPlatform };
  if (!loaded.platform)
    throw new Error(`shared/platforms/${folderOf(type)}/sql-platform.ts exports no platform`);
  return loaded.platform;
}

/** Every SQL type with its SQL half, in registry order. */
export async function sqlPlatforms(): Promise<{ type: IntegrationType; platform: SqlPlatform }[]> {
  const types = platforms()
    .map((m) => m.type as IntegrationType)
    .filter(isSqlType);
  return Promise.all(types.map(async (type) => ({ type, platform: await sqlPlatformOf(type) })));
}
