/**
 * What a type's `examples.ts` holds: the payloads tests build their cases from (issue 36 item 5).
 * Generic tests iterate the registry and take each type's examples from its folder, found by
 * convention as `sql-platform.ts` is (test/support/platform-examples.ts), so a new type is
 * covered — fixtures, schema checks, golden scripts, the sandbox — by adding its folder, and
 * fails the generic tests until its examples exist. No Lambda bundle imports an examples file.
 */
import type { SqlPayload } from '.';
import type { PlatformModule } from './module';

/** A request body as a test sends it (tests change fields freely). */
// biome-ignore lint/suspicious/noExplicitAny: example bodies are mutated freely by tests
export type ExampleBody = Record<string, any>;

export interface PlatformExamples {
  /** A valid create body; every uniqueness claim (host, name, path) is unique per `id`. */
  body(id: string): ExampleBody;
  /** The privileged credentials a DELETE sends, for a type whose setup the service runs. */
  deleteBody?(id: string): ExampleBody;
  /**
   * An updatable type's editable change that keeps the connection (a setting): a config field and
   * its new value. The read config goes back with its placeholders, which keep the stored secrets.
   */
  settingEdit?: readonly [field: string, value: unknown];
  /** SQL types: the payloads their scripts are checked with. */
  sql?: SqlExamples;
}

export interface SqlExamples {
  /**
   * The representative payload of either setup mode, every optional feature off; `extra`
   * overrides config fields (`undefined` removes one).
   */
  build(autoBootstrap: boolean, extra?: Record<string, unknown>): SqlPayload;
  /**
   * The payload with `value` in every config field its scripts quote (names, roles, secrets): the
   * injection tests check that a hostile value changes only the contents of quoted tokens.
   */
  injected(value: string): SqlPayload;
  /** Golden script cases: each renders every script of the type to `golden/<name>.sql`. */
  scripts: Readonly<Record<string, SqlPayload>>;
  /** Golden edit cases, `[in effect, next]`: each renders to `golden/edit-<name>.sql`. */
  edits: Readonly<Record<string, readonly [SqlPayload, SqlPayload]>>;
}

/** A DELETE's privileged user-and-password credentials, unique per `id`. */
export const adminCredentials = (id: string): ExampleBody => ({
  authenticationType: 'userPassword',
  username: `adm-${id}`,
  password: `adm-pass-${id}`,
});

/**
 * A payload of `module`'s type, parsed by the module (defaults applied); config keys set to
 * `undefined` are dropped, so an example can remove a default.
 */
export function examplePayload(
  module: PlatformModule,
  autoBootstrap: boolean,
  config: Record<string, unknown>,
): SqlPayload {
  const kept = Object.fromEntries(Object.entries(config).filter(([, v]) => v !== undefined));
  return module.payloadSchema.parse({ type: module.type, autoBootstrap, config: kept }) as SqlPayload;
}
