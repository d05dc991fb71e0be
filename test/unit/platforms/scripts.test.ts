/**
 * Golden tests of every script (files under ./golden, reviewed by hand when they change) and
 * the node-sql-parser coverage check: every statement whose kind the parser supports in the
 * closest dialect must parse; the kinds it cannot parse are listed (and the list is checked,
 * so it cannot go stale). The generic checks are suites every type gets
 * (test/support/platform-suites.ts); the cases here are by hand.
 */
import { describe, expect, it } from 'vitest';
import { type SqlPayload, scriptFor } from '../../../shared/platforms/scripts';
import { statementsOf } from '../../../shared/platforms/sql/script';
import { goldenEdits, goldenScriptSuite, parserSuite } from '../../support/platform-suites';
import { cloud, cluster, PRIVATE_KEY } from './fixtures';

const ALL_ON = { impersonation: { enabled: true } };

/** Every registered SQL type's golden edits, from its examples (shared/platforms/<type>/examples.ts). */
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

// Every statement of the cases above parses in its dialect's closest node-sql-parser dialect,
// but the kinds that parser is known not to support.
await parserSuite();
