/**
 * The generic suites every platform type gets (issue 36 item 5): its fixture is valid and its
 * schema refuses unknown fields; its golden scripts and edits render as reviewed, a hostile config
 * value changes only the contents of quoted tokens; and each golden case runs on the sandbox.
 * The generic test files call them for the registered types, and the ninth-type test
 * (test/unit/platforms/ninth-type.test.ts) for a type it registers at run time, so a new type is
 * covered by the same code. Each is called while a file collects its tests, for types given by
 * name (a type registered at run time must be registered by then).
 */
import { resolve } from 'node:path';
import { Parser } from 'node-sql-parser';
import { describe, expect, it } from 'vitest';
import { type IntegrationType, payloadSchemaFor, platformOf, type ScriptKind } from '../../shared/platforms';
import { sandboxConnector } from '../../shared/platforms/connectors';
import type { SqlExamples } from '../../shared/platforms/examples';
import { runOnSandbox } from '../../shared/platforms/sandbox/run-script';
import { tokenize } from '../../shared/platforms/sandbox/sql';
import { readState } from '../../shared/platforms/sandbox/store';
import { type SqlPayload, scriptFor } from '../../shared/platforms/scripts';
import { dialectOf } from '../../shared/platforms/sql/dialects';
import { renderScript, statementsOf } from '../../shared/platforms/sql/script';
import { sqlPlatformOf } from '../../shared/platforms/sql-platforms';
import { examplesOf, goldenKinds, registeredTypes, sqlExamples } from './platform-examples';
import { tempDir } from './temp';

/** The reviewed golden files: one per golden case, named by the case. */
const GOLDEN = resolve(import.meta.dirname, '../unit/platforms/golden');

/** A derived public key differs per run: golden files hold a placeholder. */
const stable = (text: string) => text.replace(/RSA_PUBLIC_KEY = '[^']+'/g, "RSA_PUBLIC_KEY = '<derived>'");

/** The SQL examples of the given types (every registered SQL type by default). */
function sqlExamplesOf(types?: readonly string[]): [IntegrationType, SqlExamples][] {
  return sqlExamples().filter(([type]) => types === undefined || types.includes(type));
}

/** Every golden script case of the given SQL types, by name. */
export function goldenCases(types?: readonly string[]): [string, SqlPayload][] {
  return sqlExamplesOf(types).flatMap(([, examples]) => Object.entries(examples.scripts));
}

/** Every golden edit case of the given SQL types, by name. */
export function goldenEdits(types?: readonly string[]): [string, readonly [SqlPayload, SqlPayload]][] {
  return sqlExamplesOf(types).flatMap(([, examples]) => Object.entries(examples.edits));
}

/** Each type's example body is valid, parsed as the API parses a body of its type. */
export function fixtureSuite(types: readonly string[] = registeredTypes()): void {
  describe('every fixture is valid', () => {
    for (const type of types) {
      it(type, () => {
        const body = examplesOf(type).body('t');
        expect(body.type).toBe(type);
        expect(payloadSchemaFor(body).safeParse(body).success).toBe(true);
      });
    }
  });
}

/** Each type's schema refuses a field it does not know, at the top level and inside config. */
export function schemaSuite(types: readonly string[] = registeredTypes()): void {
  describe('unknown fields are refused, with their path', () => {
    for (const type of types) {
      it(type, () => {
        const body = examplesOf(type).body('t');
        const paths = (candidate: unknown) =>
          payloadSchemaFor(candidate)
            .safeParse(candidate)
            .error?.issues.map((i) => i.path.join('.'));
        expect(paths({ ...body, extra: 1 })).toContain('');
        // A type without a config (FederatedSql) has only the top level to check.
        if (body.config) expect(paths({ ...body, config: { ...body.config, extra: 1 } })).toContain('config');
      });
    }
  });
}

/** Every script of each golden case, and each golden edit, matches its reviewed file. */
export function goldenScriptSuite(types?: readonly string[]): void {
  describe('golden scripts', () => {
    for (const [name, payload] of goldenCases(types)) {
      it(name, async () => {
        const rendered = await Promise.all(
          (await goldenKinds(payload)).map(
            async (kind) => `-- ===== ${kind} =====\n${renderScript(await scriptFor(kind, payload))}`,
          ),
        );
        await expect(stable(rendered.join('\n'))).toMatchFileSnapshot(`${GOLDEN}/${name}.sql`);
      });
    }
  });

  describe('golden edit scripts', () => {
    for (const [name, [previous, next]] of goldenEdits(types)) {
      it(name, async () => {
        const text = stable(renderScript(await scriptFor('edit', next, previous)));
        await expect(text).toMatchFileSnapshot(`${GOLDEN}/edit-${name}.sql`);
      });
    }
  });
}

/** Config values that try to end a quoted token. */
export const HOSTILE = [
  `x"; DROP DATABASE prod; --`,
  `x]; DROP TABLE t; --`,
  'x`; DROP CATALOG c; --',
  `a'b`,
  `'; DELETE FROM users; /*`,
  `back\\slash'; --`,
  `*/ SELECT 1; --`,
];

/** A hostile value in every quoted config field changes only the contents of quoted tokens. */
export function injectionSuite(types?: readonly string[]): void {
  describe('injection through config values', () => {
    /** The payload of each type with `v` in every field its scripts quote (its examples). */
    const build = (v: string) => sqlExamplesOf(types).map(([, examples]) => examples.injected(v));

    it.each(HOSTILE)(
      '%j changes only the contents of quoted tokens, never the statement structure',
      async (hostile) => {
        const benign = build('benign_value');
        const evil = build(hostile);
        expect(evil.length).toBeGreaterThan(0);
        for (const [i, p] of evil.entries()) {
          const { dialect } = await sqlPlatformOf(p.type);
          /** The statement's structure: keywords and punctuation, every quoted token reduced to its kind. */
          const shape = (statement: string) =>
            tokenize(dialect, statement).map((t) => (t.t === 'ident' || t.t === 'string' ? t.t : t.v));
          for (const kind of await goldenKinds(p)) {
            const good = statementsOf(await scriptFor(kind, benign[i] as typeof p));
            const bad = statementsOf(await scriptFor(kind, p));
            expect(bad).toHaveLength(good.length);
            for (const [n, statement] of bad.entries()) {
              if (statement.startsWith('DECLARE @drop')) continue;
              expect(shape(statement)).toEqual(shape(good[n] as string));
            }
          }
        }
      },
    );
  });
}

/** The privileged credentials a teardown of an automatic setup is given on the sandbox. */
const ADMIN = { authenticationType: 'userPassword', username: 'admin', password: 'pw', role: 'ACCOUNTADMIN' };

/** The host a payload's remote objects live on (its module says which config field holds it). */
const hostOf = (p: SqlPayload): string => {
  const host = platformOf(p.type).remote?.host(p) ?? '';
  return host.includes('://') ? new URL(host).hostname : host;
};

/** Objects the service or a script created (pre-existing platform accounts excluded). */
function created(p: SqlPayload) {
  const state = readState(p.type, hostOf(p));
  return {
    objects: Object.values(state.objects).filter((o) => o.attrs.preexisting !== true),
    grants: state.grants,
    members: state.members,
  };
}

/**
 * A payload's lifecycle on the sandbox, in a sandbox of its own: an automatic setup validates,
 * bootstraps, is seen by a second validation and is removed by teardown; a manual one fails
 * validation until the operator runs its setup scripts, then validates and bootstraps, and its
 * delete script removes everything (teardown of a manual integration touches nothing).
 */
export async function sandboxLifecycle(p: SqlPayload): Promise<void> {
  process.env.SANDBOX_DIR = tempDir('causeway-sandbox-');
  const c = await sandboxConnector(p.type);
  if (p.autoBootstrap) {
    const first = await c.validate({ operation: 'create', payload: p });
    expect(first.filter((t) => t.status === 'failed')).toEqual([]);
    await c.bootstrap({ integrationId: 10, payload: p });
    expect(created(p).objects.length).toBeGreaterThan(0);
    const again = await c.validate({ operation: 'create', payload: p });
    expect(again.some((t) => t.status === 'failed' && /already exists/.test(t.message ?? ''))).toBe(true);
    await c.teardown({ integrationId: 10, payload: p, privilegedCredentials: ADMIN });
    expect(created(p)).toEqual({ objects: [], grants: [], members: [] });
    return;
  }
  const before = await c.validate({ operation: 'create', payload: p });
  expect(before.find((t) => t.name === 'Validate Manual: Setup Objects Exist')).toMatchObject({
    status: 'failed',
    message: expect.stringContaining('run the script'),
  });
  await expect(c.bootstrap({ integrationId: 20, payload: p })).rejects.toMatchObject({
    name: 'PlatformOperationError',
  });
  // The setup scripts the type has (an initial step where it has one), in order.
  const setup: ScriptKind[] = (await goldenKinds(p)).filter(
    (kind) => kind === 'initial-create' || kind === 'create',
  );
  for (const kind of setup) await runOnSandbox(p.type, hostOf(p), await scriptFor(kind, p));
  const after = await c.validate({ operation: 'create', payload: p });
  expect(after.filter((t) => t.status === 'failed')).toEqual([]);
  await c.bootstrap({ integrationId: 20, payload: p });
  await c.teardown({ integrationId: 20, payload: p });
  expect(created(p).objects.length).toBeGreaterThan(0);
  await runOnSandbox(p.type, hostOf(p), await scriptFor('delete', p));
  expect(created(p)).toEqual({ objects: [], grants: [], members: [] });
}

/** Every golden case of the given SQL types goes through its lifecycle on the sandbox. */
export function sandboxSuite(types?: readonly string[]): void {
  describe('golden cases on the sandbox', () => {
    for (const [name, p] of goldenCases(types)) {
      const mode = p.autoBootstrap ? 'automatic' : 'manual';
      it(`${name}: ${mode} setup, validation, bootstrap and removal`, () => sandboxLifecycle(p));
    }
  });
}

/**
 * Statement kinds node-sql-parser 5 cannot parse in the closest dialect (checked below: each
 * must still fail to parse, so a parser upgrade that learns one shows up here).
 */
export const UNPARSEABLE: Record<string, RegExp[]> = {
  postgresql: [
    /^CREATE USER /,
    /^CREATE GROUP /,
    /^ALTER GROUP /,
    /^ALTER USER /,
    /^CREATE DATABASE .* OWNER /,
    /^DROP DATABASE /,
    /^DROP GROUP /,
    /^DROP USER /,
    /^CREATE SCHEMA .* AUTHORIZATION /,
    /TO GROUP /,
    /FROM GROUP /,
  ],
  snowflake: [
    /^CREATE ROLE /,
    /^GRANT /,
    /^REVOKE /,
    /^CREATE USER /,
    /^ALTER USER /,
    /^ALTER ROLE /,
    /^DROP ROLE /,
    /^DROP USER /,
    /^DROP DATABASE /,
    /^DROP SCHEMA /,
  ],
  transactsql: [
    /^CREATE LOGIN /,
    /^ALTER LOGIN /,
    /^DROP LOGIN /,
    /^CREATE USER /,
    /^ALTER USER /,
    /^DROP USER /,
    /^CREATE SCHEMA /,
    /^DROP SCHEMA /,
    /^GRANT (CREATE|SELECT|ALTER ANY SECURITY POLICY) /,
    /^CREATE ROLE /,
    /^ALTER ROLE /,
    /^DROP ROLE /,
    /^DECLARE @drop /,
  ],
  hive: [/^CREATE CATALOG /, /^DROP CATALOG /, /^ALTER CATALOG /, /^DROP SCHEMA /, /^GRANT /, /^REVOKE /],
};

/**
 * Every statement of the given types' golden cases and edits parses in the node-sql-parser dialect
 * closest to its SQL dialect (the dialect module's `parser`), but the kinds listed above, each of
 * which must still fail to parse. A dialect without a `parser` has no parser check; its golden
 * scripts and the sandbox still cover it.
 */
export async function parserSuite(types?: readonly string[]): Promise<void> {
  /** Every statement of the cases, by parser dialect (scripts are rendered first: await the suite). */
  const all = new Map<string, Set<string>>();
  const parserOf = async (p: SqlPayload) => dialectOf((await sqlPlatformOf(p.type)).dialect).parser;
  for (const [, payload] of goldenCases(types)) {
    const d = await parserOf(payload);
    if (d === undefined) continue;
    const set = all.get(d) ?? new Set();
    for (const kind of await goldenKinds(payload))
      for (const s of statementsOf(await scriptFor(kind, payload))) set.add(s);
    all.set(d, set);
  }
  for (const [, [previous, next]] of goldenEdits(types)) {
    const d = await parserOf(next);
    if (d === undefined) continue;
    for (const s of statementsOf(await scriptFor('edit', next, previous))) all.get(d)?.add(s);
  }

  describe('node-sql-parser coverage', () => {
    const parser = new Parser();
    for (const [dialect, statements] of all) {
      it(`${dialect}: supported kinds parse, listed kinds are really unsupported`, () => {
        let parsed = 0;
        for (const statement of statements) {
          const listed = (UNPARSEABLE[dialect] ?? []).some((re) => re.test(statement));
          let ok = true;
          try {
            parser.astify(statement, { database: dialect });
          } catch {
            ok = false;
          }
          if (listed) expect(ok, `listed as unparseable but parses: ${statement}`).toBe(false);
          else {
            expect(ok, `does not parse in ${dialect}: ${statement}`).toBe(true);
            parsed++;
          }
        }
        expect(parsed).toBeGreaterThan(0);
      });
    }
  });
}
