/**
 * The registry of SQL dialects: one module each. A platform type's SQL half names its dialect
 * (`SqlPlatform.dialect`); a new dialect is a module beside these and one line here.
 */
import type { SqlDialect } from '../dialect';
import { cloud } from './cloud';
import { cluster } from './cluster';
import { lakehouse } from './lakehouse';
import { tsql } from './tsql';

const DIALECTS = { cloud, cluster, tsql, lakehouse } satisfies Record<string, SqlDialect>;

export type Dialect = keyof typeof DIALECTS;

/** The listed dialects. */
const registered = new Map<string, SqlDialect>(Object.entries(DIALECTS));

/** The dialect's rules. */
export function dialectOf(name: Dialect): SqlDialect {
  const dialect = registered.get(name);
  if (!dialect) throw new Error(`no SQL dialect ${name} is registered`);
  return dialect;
}

/**
 * Adds a dialect at run time and returns its removal. Tests only, as `registerPlatform`: the
 * production dialects are the ones listed above.
 */
export function registerDialect(name: string, dialect: SqlDialect): () => void {
  if (registered.has(name)) throw new Error(`SQL dialect ${name} is already registered`);
  registered.set(name, dialect);
  return () => registered.delete(name);
}

/** Every registered dialect's name, in registry order. */
export function dialectNames(): Dialect[] {
  return [...registered.keys()] as Dialect[];
}
