/**
 * What a platform type is: everything the service knows about one type lives in its folder, and
 * generic code asks the registry (`shared/platforms/index.ts`) instead of naming a type. See
 * docs/adr/0002-platform-modules.md.
 *
 * A type's folder (`shared/platforms/<kebab-case type>/`) holds, by convention:
 * - `index.ts`: the `PlatformModule` below — what the API needs (schema, secrets, rules), light
 *   enough for every API function to bundle;
 * - `sql-platform.ts` (SQL types): the `SqlPlatform` — dialect, connection targets, validation checks and
 *   the setup plan the scripts, bootstrap, edits, teardown and the sandbox read; loaded on demand
 *   by `./sql-platforms` (only functions that do remote work or render scripts bundle it);
 * - `driver.ts`: the deployed driver (`driver` for SQL types, `connector()` for the others) and,
 *   for types that are not SQL, `sandbox.ts` (`sandboxConnector`); loaded by `./connectors`.
 */
import * as z from 'zod/mini';

/** What a read returns in place of every secret; a PUT that sends it back keeps the stored value. */
export const REDACTED = '[REDACTED]';

/** A payload as the type's schema outputs it (`config` absent for types configured elsewhere). */
export interface AnyPayload {
  type: string;
  autoBootstrap?: boolean;
  config?: unknown;
}

/** One uniqueness claim: unique across all live integrations, and how a conflict describes it. */
export interface Claim {
  claim: string;
  describe: string;
}

/** The claim of a type identified by its host. */
export function hostClaim(host: string): Claim {
  return { claim: `host#${host}`, describe: `host ${host}` };
}

/** The DELETE body rules of a type whose automatic integrations need privileged credentials. */
interface DeletionRules {
  /** The privileged credentials (strict). */
  schema: z.ZodMiniType;
  /** A body a manual integration may send that carries no credential (it is ignored). */
  ignoredManualBody?(body: Record<string, unknown>): boolean;
  /** Fields the schema leaves optional that an automatic integration's DELETE must send. */
  requiredWhenAutomatic?: readonly string[];
}

/**
 * What a type with remote objects offers: its host and how its remote work is done. Its drivers
 * and SQL platform are not named here (API functions import the modules): they are files of the
 * type's folder that `./connectors` and `./sql-platforms` load on demand.
 */
export interface RemoteSupport<P extends AnyPayload> {
  /**
   * THE host identity: the remote endpoint (one sandbox state per host), and for most types
   * the uniqueness claim.
   */
  host(payload: P): string;
  /**
   * `sql`: the generic SQL connector runs the folder's `sql-platform.ts` over its `driver.ts`
   * driver (or the sandbox's); `own`: the folder's `driver.ts` and `sandbox.ts` are connectors.
   */
  readonly connector: 'sql' | 'own';
  /** SQL types: the script routes that accept the type in a request body (the spec's lists). */
  readonly scriptRoutes?: readonly BodyScriptKind[];
}

/** The scripts an operator can ask for; `delete` reads the stored integration, the others a body. */
export type ScriptKind = 'initial-create' | 'create' | 'edit' | 'delete' | 'cleanup' | 'post-cleanup';
export type BodyScriptKind = Exclude<ScriptKind, 'delete'>;

export interface PlatformModule<P extends AnyPayload = AnyPayload> {
  readonly type: P['type'];
  /** The create/update payload: a strict object whose `type` is the type's literal. */
  readonly payloadSchema: z.ZodMiniType<P> & z.ZodMiniObject;
  /**
   * Dotted paths inside `config`: encrypted at rest and read back as the redaction placeholder
   * (credential usernames are listed too: the contract hides them in returned configs; scripts
   * still name the account as an identifier — docs/integrations.md, "Usernames").
   */
  readonly secretPaths: readonly string[];
  /**
   * Config paths (leaves, or objects covering their leaves) that do not change where or how the
   * service connects: names of remote objects, flags, patterns, the authentication branch. Every
   * other non-secret config field is the type's connection identity (`./connection.ts`): a change
   * to it requires every secret again, and ciphertext is bound to it. A field missing here is
   * treated as connection identity, the safe side.
   */
  readonly settings: readonly string[];
  /** Config paths a PUT may not change (the document marks them: `x-non-editable`). */
  readonly nonEditable: readonly string[];
  /**
   * Config paths the schema leaves optional that an automatic setup needs (refused when absent
   * with autoBootstrap true, by `requireWhenAutomatic` in the payload schema's refinement; the
   * document marks them: `x-required-when-automatic`).
   */
  readonly requiredWhenAutomatic?: readonly string[];
  /**
   * The config fields that tell two integrations of the type apart in a list: where it connects
   * and the name it works under there (the document marks them: `x-host-field`, `x-name-field`).
   */
  readonly listedAs?: { readonly host?: string; readonly name?: string };
  /** The attributes a change of the uniqueness claims is reported as. */
  readonly identityAttributes: readonly string[];
  readonly supportsAutoBootstrap: boolean;
  /** Whether PUT /integrations/{id} accepts the type (the spec's update list). */
  readonly updatable: boolean;
  /**
   * The type authenticates its cluster with an API key the service issues (shown once, renewed
   * by POST /integrations/{id}/regenerate). The OpenAPI document marks such types
   * (`x-issues-api-key` on their payload schema), which is how the console knows.
   */
  readonly issuesApiKey?: boolean;
  /** `undefined`: DELETE takes no body for this type. */
  readonly deletion?: DeletionRules;
  /** Uniqueness claims of a payload (derived from `remote.host` for host-identified types). */
  claims(payload: P): Claim[];
  /** `undefined`: the type has no remote objects (nothing to validate, bootstrap or tear down). */
  readonly remote?: RemoteSupport<P>;
  /**
   * Data sources may be registered under integrations of this type (ADR 0016): the `s3://`
   * location they must lie inside. Its connector then implements `locate`.
   */
  readonly dataSources?: { location(payload: P): string };
}

/**
 * Declares a module, keeping its payload type and its literal facts (such as
 * `remote.connector`) for the registry's derived types:
 * `export const x = definePlatform<Payload>()({ … })`.
 */
export function definePlatform<P extends AnyPayload>() {
  return <const M extends PlatformModule<P>>(module: M): M => module;
}

/** The folder of a type (`ClusterWarehouse` → `cluster-warehouse`): where its files are found. */
export function folderOf(type: string): string {
  return type.replace(/(?<=[a-z0-9])([A-Z])/g, '-$1').toLowerCase();
}

/** The payload envelope of a type: `type`, `autoBootstrap` and the type's config. */
export function configPayload<T extends string, C extends z.ZodMiniType>(type: T, config: C) {
  return z.strictObject({ type: z.literal(type), autoBootstrap: z.boolean(), config });
}

/**
 * Refinement option: run even when other fields already failed, so one answer lists every
 * problem (the refinement must then read its input defensively, e.g. with `getPath`).
 */
export const EVEN_WITH_OTHER_ISSUES = {
  when: (payload: { value: unknown }) => payload.value !== null && typeof payload.value === 'object',
};

export function addIssue(ctx: z.core.$RefinementCtx, path: (string | number)[], message: string): void {
  ctx.addIssue({ code: 'custom', path, message });
}

/** Refuses an automatic setup that lacks one of `paths` (config paths the module declares). */
export function requireWhenAutomatic(
  payload: unknown,
  ctx: z.core.$RefinementCtx,
  paths: readonly string[],
): void {
  if (getPath(payload, 'autoBootstrap') !== true) return;
  for (const path of paths) {
    if (!getPath(payload, `config.${path}`))
      addIssue(ctx, ['config', ...path.split('.')], 'is required when autoBootstrap is true');
  }
}

/** Reads a dotted config path without trusting the shape (refinements run on partial input). */
export function getPath(obj: unknown, path: string): unknown {
  let cur: unknown = obj;
  for (const key of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

/** Replaces the value at a dotted config path, where one is present (never adds a field). */
export function setPath(obj: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let cur: Record<string, unknown> = obj;
  for (const key of keys.slice(0, -1)) {
    const next = cur[key];
    if (next === null || typeof next !== 'object') return;
    cur = next as Record<string, unknown>;
  }
  const last = keys[keys.length - 1] as string;
  if (last in cur) cur[last] = value;
}
