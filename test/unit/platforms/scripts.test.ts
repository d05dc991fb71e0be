/**
 * Golden tests of every script (files under ./golden, reviewed by hand when they change) and
 * the node-sql-parser coverage check: every statement whose kind the parser supports in the
 * closest dialect must parse; the kinds it cannot parse are listed (and the list is checked,
 * so it cannot go stale).
 */
import { Parser } from 'node-sql-parser';
import { describe, expect, it } from 'vitest';
import { type SqlPayload, scriptFor } from '../../../shared/platforms/scripts';
import { statementsOf } from '../../../shared/platforms/sql/script';
import { sqlPlatformOf } from '../../../shared/platforms/sql-platforms';
import { goldenKinds } from '../../support/platform-examples';
import { goldenCases, goldenEdits, goldenScriptSuite } from '../../support/platform-suites';
import { cloud, cluster, PRIVATE_KEY } from './fixtures';

const ALL_ON = { impersonation: { enabled: true } };

/** Every registered SQL type's golden cases and edits, from its examples (shared/platforms/<type>/examples.ts). */
const CASES: Record<string, SqlPayload> = Object.fromEntries(goldenCases());
const EDITS: Record<string, readonly [SqlPayload, SqlPayload]> = Object.fromEntries(goldenEdits());

// Each case's scripts and each edit match their reviewed file under ./golden.
goldenScriptSuite();

describe('golden edit scripts, by hand', () => {
  it('an edit that changes nothing remote has no statements', async () => {
    const [previous, next] = EDITS['cluster-no-change'] as [SqlPayload, SqlPayload];
    expect(statementsOf(await scriptFor('edit', next, previous))).toEqual([]);
  });
});

describe('scripts inline', () => {
  it('ClusterWarehouse manual setup, both steps', async () => {
    const p = cluster(false, ALL_ON);
    expect([
      ...statementsOf(await scriptFor('initial-create', p)),
      ...statementsOf(await scriptFor('create', p)),
    ]).toEqual([
      `CREATE USER "service_system_user" PASSWORD 'S3cret-pass'`,
      'CREATE GROUP "service_system"',
      'ALTER GROUP "service_system" ADD USER "service_system_user"',
      'CREATE DATABASE "service_db" OWNER "service_system_user"',
      'REVOKE ALL ON DATABASE "service_db" FROM PUBLIC',
      'GRANT ALL ON DATABASE "service_db" TO GROUP "service_system"',
      'CREATE GROUP "service_impersonation"',
      'CREATE SCHEMA "service_metadata" AUTHORIZATION "service_system_user"',
      'CREATE SCHEMA "service_policies" AUTHORIZATION "service_system_user"',
      'GRANT ALL ON SCHEMA "service_metadata" TO GROUP "service_system"',
      'GRANT ALL ON SCHEMA "service_policies" TO GROUP "service_system"',
      'GRANT USAGE ON SCHEMA "service_policies" TO GROUP "service_impersonation"',
    ]);
  });

  it('delete scripts drop in reverse order of creation', async () => {
    const p = cloud(false, ALL_ON);
    expect(statementsOf(await scriptFor('delete', p))).toEqual([
      'DROP ROLE "SERVICE_IMPERSONATION"',
      'DROP USER "SERVICE_USER"',
      'DROP DATABASE "SERVICE_DB"',
      'DROP ROLE "SERVICE_SYSTEM_ROLE"',
    ]);
  });

  it('key-pair users get the public key derived from the private key, never the private key', async () => {
    const p = cloud(false, { authenticationType: 'keyPair', password: undefined, privateKey: PRIVATE_KEY });
    const create = statementsOf(await scriptFor('create', p)).find((s) => s.startsWith('CREATE USER'));
    expect(create).toMatch(/RSA_PUBLIC_KEY = 'MII[A-Za-z0-9+/=]+'/);
    expect(create).not.toContain('PRIVATE');
  });
});

/**
 * Statement kinds node-sql-parser 5 cannot parse in the closest dialect (checked below: each
 * must still fail to parse, so a parser upgrade that learns one shows up here).
 */
const UNPARSEABLE: Record<string, RegExp[]> = {
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
 * The node-sql-parser dialect closest to each of ours. A dialect without one (a new one, until it
 * is added here) has no parser check; its golden scripts and the sandbox still cover it.
 */
const PARSER_DIALECT: Partial<Record<string, string>> = {
  cluster: 'postgresql',
  cloud: 'snowflake',
  tsql: 'transactsql',
  lakehouse: 'hive',
};

/** Every statement of the cases above, by parser dialect (scripts are rendered asynchronously). */
const all = new Map<string, Set<string>>();
for (const payload of Object.values(CASES)) {
  const d = PARSER_DIALECT[(await sqlPlatformOf(payload.type)).dialect];
  if (d === undefined) continue;
  const set = all.get(d) ?? new Set();
  for (const kind of await goldenKinds(payload))
    for (const s of statementsOf(await scriptFor(kind, payload))) set.add(s);
  all.set(d, set);
}
for (const [name, [previous, next]] of Object.entries(EDITS)) {
  void name;
  const d = PARSER_DIALECT[(await sqlPlatformOf(next.type)).dialect];
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
