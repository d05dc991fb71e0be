/**
 * What a SQL platform module declares for the generic SQL connector and the script routes (its
 * deployed driver is loaded through `./runtime`, which API handlers never import).
 */
import type { Dialect } from './sql/quote';

export type ScriptKind = 'initial-create' | 'create' | 'edit' | 'delete' | 'cleanup' | 'post-cleanup';

// biome-ignore lint/correctness/noUnusedVariables: P is used by later members
export interface SqlSupport<P> {
  readonly dialect: Dialect;
  /** Script routes that accept the type in a request body (the delete route reads the stored integration). */
  readonly scriptRoutes: readonly Exclude<ScriptKind, 'delete'>[];
}
