/**
 * Each registered type's example payloads, from its folder (`shared/platforms/<type>/examples.ts`,
 * found by convention as `sql-platform.ts` is): what the generic tests build their cases from.
 * A registered type without an examples file fails every test that loads this module, naming the
 * file to write. A type registered at run time (`registerPlatform`, tests only) brings its
 * examples with `registerExamples`.
 */
import {
  type IntegrationType,
  platformOf,
  platforms,
  type ScriptKind,
  type SqlPayload,
} from '../../shared/platforms';
import type { PlatformExamples, SqlExamples } from '../../shared/platforms/examples';
import { folderOf } from '../../shared/platforms/module';
import { sqlPlatformOf } from '../../shared/platforms/sql-platforms';

const byType = new Map<string, PlatformExamples>();
for (const { type } of platforms()) {
  const file = `shared/platforms/${folderOf(type)}/examples.ts`;
  const loaded = (await import(`../../shared/platforms/${folderOf(type)}/examples.ts`).catch((cause) => {
    throw new Error(`platform type ${type} has no examples: write ${file}`, { cause });
  })) as { examples?: PlatformExamples };
  if (!loaded.examples) throw new Error(`${file} exports no \`examples\``);
  byType.set(type, loaded.examples);
}

/** The examples of a registered type. */
export function examplesOf(type: string): PlatformExamples {
  const examples = byType.get(type);
  if (!examples) throw new Error(`platform type ${type} has no examples`);
  return examples;
}

/** The types registered now (the registry's, then any a test registered), in registry order. */
export const registeredTypes = (): IntegrationType[] => platforms().map((m) => m.type as IntegrationType);

/** The SQL examples of every registered SQL type, in registry order. */
export function sqlExamples(): [IntegrationType, SqlExamples][] {
  return platforms()
    .filter((m) => m.remote?.connector === 'sql')
    .map((m) => {
      const sql = examplesOf(m.type).sql;
      if (!sql) throw new Error(`SQL platform type ${m.type} has no SQL examples (examples.sql)`);
      return [m.type as IntegrationType, sql];
    });
}

/** Adds a run-time registered type's examples and returns their removal (tests only). */
export function registerExamples(type: string, examples: PlatformExamples): () => void {
  if (byType.has(type)) throw new Error(`platform type ${type} already has examples`);
  byType.set(type, examples);
  return () => byType.delete(type);
}

/**
 * The scripts a type has, in the order a golden file holds them: its script routes that answer
 * with a script of their own (a layout; cleanup falls back to the delete script), and delete.
 */
export async function goldenKinds(payload: SqlPayload): Promise<ScriptKind[]> {
  const routes: readonly string[] = platformOf(payload.type).remote?.scriptRoutes ?? [];
  const { layouts } = await sqlPlatformOf(payload.type);
  const has: Record<'initial-create' | 'create' | 'cleanup' | 'post-cleanup' | 'delete', boolean> = {
    'initial-create': routes.includes('initial-create') && layouts['initial-create'] !== undefined,
    create: true,
    cleanup: routes.includes('cleanup'),
    'post-cleanup': routes.includes('post-cleanup') && layouts['post-cleanup'] !== undefined,
    delete: true,
  };
  return (Object.keys(has) as (keyof typeof has)[]).filter((kind) => has[kind]);
}
