/**
 * A ninth platform type, copied from ClusterWarehouse as a new type's folder would be (its module,
 * its SQL half naming a new `ninth` dialect module that copies cluster's rules, its examples), is
 * registered at run time — type, dialect and examples — and gets the generic suites the registered
 * types get (test/support/platform-suites.ts): fixture validity, schema checks, golden scripts and
 * edits, the injection check, the node-sql-parser check (its dialect module names the parser
 * dialect) and the sandbox lifecycle of every golden case. No test names it:
 * rendering ClusterWarehouse's statements, it is checked against ClusterWarehouse's golden files,
 * so nothing new is written (issue 36 item 5).
 *
 * The type is registered while this file collects its tests (the suites iterate types then), and
 * removed after it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import {
  type IntegrationType,
  platforms,
  registerPlatform,
  type SqlPayload,
} from '../../../shared/platforms';
import { clusterWarehouse } from '../../../shared/platforms/cluster-warehouse';
import { examples as clusterExamples } from '../../../shared/platforms/cluster-warehouse/examples';
import { clusterWarehouseSchemas } from '../../../shared/platforms/cluster-warehouse/schema';
import { platform as clusterSql } from '../../../shared/platforms/cluster-warehouse/sql-platform';
import type { PlatformExamples, SqlExamples } from '../../../shared/platforms/examples';
import {
  configPayload,
  EVEN_WITH_OTHER_ISSUES,
  type PlatformModule,
  requireWhenAutomatic,
} from '../../../shared/platforms/module';
import type { SqlDialect } from '../../../shared/platforms/sql/dialect';
import { cluster } from '../../../shared/platforms/sql/dialects/cluster';
import { type Dialect, dialectNames, registerDialect } from '../../../shared/platforms/sql/dialects/index';
import type { SqlPlatform } from '../../../shared/platforms/sql/platform';
import { sqlPlatformOf } from '../../../shared/platforms/sql-platforms';
import { registerExamples } from '../../support/platform-examples';
import {
  fixtureSuite,
  goldenCases,
  goldenEdits,
  goldenScriptSuite,
  injectionSuite,
  parserSuite,
  sandboxSuite,
  schemaSuite,
} from '../../support/platform-suites';
import { payloads } from '../integrations/fixtures';

// ── the ninth type, as its folder would declare it ─────────────────────────────────────────

const NINTH = 'NinthWarehouse' as IntegrationType;

/** What the generic code read of the `ninth` dialect module (so cluster's cannot stand in for it). */
const read = new Set<string>();

/** `ninth`: cluster's rules, copied into a module of its own. */
const ninth: SqlDialect = {
  ...cluster,
  foldPlain: (value) => {
    read.add('foldPlain');
    return cluster.foldPlain(value);
  },
  get sandbox() {
    read.add('sandbox');
    return cluster.sandbox;
  },
};

const PayloadSchema = configPayload('NinthWarehouse', clusterWarehouseSchemas().config).check(
  z.superRefine((p, ctx) => requireWhenAutomatic(p, ctx, ['initialDatabase']), EVEN_WITH_OTHER_ISSUES),
);
const ninthWarehouse = { ...clusterWarehouse, type: NINTH, payloadSchema: PayloadSchema } as PlatformModule;
const ninthSql = { ...clusterSql, dialect: 'ninth' as Dialect } as unknown as SqlPlatform;

/** ClusterWarehouse's examples as the ninth type's, each parsed by the ninth module. */
const retype = (p: SqlPayload) => ninthWarehouse.payloadSchema.parse({ ...p, type: NINTH }) as SqlPayload;
const clusterSqlExamples = clusterExamples.sql as SqlExamples;
const ninthExamples: PlatformExamples = {
  body: (id) => ({ ...clusterExamples.body(id), type: NINTH }),
  deleteBody: clusterExamples.deleteBody,
  settingEdit: clusterExamples.settingEdit,
  sql: {
    build: (autoBootstrap, extra) => retype(clusterSqlExamples.build(autoBootstrap, extra)),
    injected: (v) => retype(clusterSqlExamples.injected(v)),
    scripts: Object.fromEntries(Object.entries(clusterSqlExamples.scripts).map(([n, p]) => [n, retype(p)])),
    edits: Object.fromEntries(
      Object.entries(clusterSqlExamples.edits).map(([n, [previous, next]]) => [
        n,
        [retype(previous), retype(next)] as const,
      ]),
    ),
  },
};

// ── registered as the folder, a registry line and a dialect line would register it ───────

const unregister = [
  registerDialect('ninth', ninth),
  registerPlatform(ninthWarehouse, ninthSql),
  registerExamples(NINTH, ninthExamples),
];
afterAll(() => {
  for (const undo of unregister) undo();
});

describe('the ninth type is registered with its own dialect', () => {
  it('is in the registry, the fixtures and the dialect list, and its SQL half names its dialect', async () => {
    expect(platforms().map((m) => m.type)).toContain(NINTH);
    expect(Object.keys(payloads())).toContain(NINTH);
    expect(dialectNames()).toContain('ninth');
    expect((await sqlPlatformOf(NINTH)).dialect).toBe('ninth');
  });

  it('has golden cases of its own, named as ClusterWarehouse’s (so checked against its files)', () => {
    const cases = goldenCases([NINTH]);
    expect(cases.map(([name]) => name)).toEqual(Object.keys(clusterSqlExamples.scripts));
    expect(cases.every(([, p]) => p.type === NINTH)).toBe(true);
    expect(goldenEdits([NINTH]).map(([name]) => name)).toEqual(Object.keys(clusterSqlExamples.edits));
  });
});

fixtureSuite([NINTH]);
schemaSuite([NINTH]);
goldenScriptSuite([NINTH]);
injectionSuite([NINTH]);
await parserSuite([NINTH]);
sandboxSuite([NINTH]);

describe('the ninth dialect module', () => {
  // Runs after the suites above (a file's tests run in order).
  it('is what the scripts and the sandbox read', () => {
    expect([...read].sort()).toEqual(['foldPlain', 'sandbox']);
  });
});
