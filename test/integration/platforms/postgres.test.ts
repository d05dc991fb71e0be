/**
 * ClusterWarehouse against a real PostgreSQL server started by this file: automatic setup,
 * edit and teardown through the real connector; the manual flow (an operator runs the
 * generated scripts as a superuser, then validation and bootstrap with autoBootstrap false);
 * connection failures reported as failed validation tests.
 *
 * Redshift-only syntax has no PostgreSQL equivalent for one statement the builders emit:
 * `CREATE USER … PASSWORD DISABLED` (access-key and idp users). Those variants are covered by
 * the golden and sandbox tests; everything else runs here.
 *
 * Over 400 lines: one PostgreSQL server per file is started once (seconds) and shared by setup,
 * edit, teardown, the manual flow and assurance.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { driver as clusterDriver } from '../../../shared/platforms/cluster-warehouse/driver';
import { realConnector } from '../../../shared/platforms/connectors';
import { IntegrationPayloadSchema } from '../../../shared/platforms/payload-schema';
import type { PlatformConnector } from '../../../shared/platforms/port';
import { repairScriptFor, type SqlPayload, scriptFor } from '../../../shared/platforms/scripts';
import { runScript } from '../../../shared/platforms/sql/connector';
import { startPostgres, type TestPostgres } from '../../support/postgres';

let server: TestPostgres;
let connector: PlatformConnector;

beforeAll(async () => {
  server = await startPostgres();
  connector = await realConnector('ClusterWarehouse');
}, 60_000);

afterAll(() => server?.stop());

function payload(autoBootstrap: boolean, config: Record<string, unknown>): SqlPayload {
  return IntegrationPayloadSchema.parse({
    type: 'ClusterWarehouse',
    autoBootstrap,
    config: {
      host: server.host,
      port: server.port,
      connectArgs: 'sslmode=disable',
      authenticationType: 'userPassword',
      ...config,
    },
  }) as SqlPayload;
}

async function admin<T>(database: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({
    host: server.host,
    port: server.port,
    user: server.superuser,
    password: server.password,
    database,
  });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

const exists = (database: string, sql: string, params: unknown[] = []) =>
  admin(database, async (c) => ((await c.query(sql, params)).rowCount ?? 0) > 0);

const privileged = () => ({
  authenticationType: 'userPassword',
  username: server.superuser,
  password: server.password,
});
const failedTests = (tests: { status: string }[]) => tests.filter((t) => t.status === 'failed');

describe('automatic setup on PostgreSQL', () => {
  it('creates the database, group, schemas and grants; edits; the delete script removes them all', async () => {
    const p = payload(true, {
      database: 'svc_auto',
      initialDatabase: 'postgres',
      username: server.superuser,
      password: server.password,
      impersonation: { enabled: true },
    });
    const validation = await connector.validate({ operation: 'create', payload: p });
    expect(failedTests(validation)).toEqual([]);
    expect(validation.find((t) => t.name === 'Validate Automatic Bootstrap User Grants')?.status).toBe(
      'passed',
    );

    await connector.bootstrap({ integrationId: 1, payload: p });
    expect(await exists('postgres', 'SELECT 1 FROM pg_database WHERE datname = $1', ['svc_auto'])).toBe(true);
    expect(await exists('postgres', "SELECT 1 FROM pg_group WHERE groname = 'service_system'")).toBe(true);
    expect(await exists('postgres', "SELECT 1 FROM pg_group WHERE groname = 'service_impersonation'")).toBe(
      true,
    );
    expect(
      await exists(
        'svc_auto',
        "SELECT 1 FROM pg_namespace WHERE nspname IN ('service_metadata', 'service_policies') HAVING count(*) = 2",
      ),
    ).toBe(true);
    expect(
      await exists(
        'svc_auto',
        "SELECT 1 WHERE has_schema_privilege('service_impersonation', 'service_policies', 'USAGE')",
      ),
    ).toBe(true);
    expect(
      await exists(
        'svc_auto',
        "SELECT 1 WHERE has_schema_privilege('service_system', 'service_metadata', 'CREATE')",
      ),
    ).toBe(true);
    expect(
      await exists('postgres', "SELECT 1 WHERE NOT has_database_privilege('public', 'svc_auto', 'CONNECT')"),
    ).toBe(true);

    const again = await connector.validate({ operation: 'create', payload: p });
    expect(again.find((t) => t.name === 'Validate Automatic: Database Does Not Exist')).toMatchObject({
      status: 'failed',
      message: expect.stringContaining('already exists'),
    });

    const edited = payload(true, { ...p.config, impersonation: { enabled: true, role: 'policy_readers' } });
    await connector.applyEdit({ integrationId: 1, previous: p, payload: edited });
    expect(await exists('postgres', "SELECT 1 FROM pg_group WHERE groname = 'policy_readers'")).toBe(true);
    expect(await exists('postgres', "SELECT 1 FROM pg_group WHERE groname = 'service_impersonation'")).toBe(
      false,
    );

    const deleteValidation = await connector.validate({
      operation: 'delete',
      payload: edited,
      privilegedCredentials: privileged(),
    });
    expect(failedTests(deleteValidation)).toEqual([]);
    await connector.teardown({ integrationId: 1, payload: edited, privilegedCredentials: privileged() });
    expect(await exists('postgres', 'SELECT 1 FROM pg_database WHERE datname = $1', ['svc_auto'])).toBe(
      false,
    );
    expect(
      await exists(
        'postgres',
        "SELECT 1 FROM pg_group WHERE groname IN ('service_system', 'policy_readers')",
      ),
    ).toBe(false);
  });

  it('teardown after a setup that failed half-way removes what exists and skips what does not', async () => {
    const p = payload(true, {
      database: 'svc_partial',
      initialDatabase: 'postgres',
      username: server.superuser,
      password: server.password,
    });
    const driverTarget = {
      host: server.host,
      port: server.port,
      database: 'postgres',
      connectArgs: 'sslmode=disable',
      credentials: privileged(),
    };
    const [first] = (await scriptFor('initial-create', p)).sections;
    await runScript(clusterDriver, driverTarget, {
      title: 'partial',
      sections: [
        { ...(first as NonNullable<typeof first>), statements: (first?.statements ?? []).slice(0, 3) },
      ],
    });
    expect(await exists('postgres', 'SELECT 1 FROM pg_database WHERE datname = $1', ['svc_partial'])).toBe(
      true,
    );
    await connector.teardown({ integrationId: 2, payload: p, privilegedCredentials: privileged() });
    expect(await exists('postgres', 'SELECT 1 FROM pg_database WHERE datname = $1', ['svc_partial'])).toBe(
      false,
    );
    expect(await exists('postgres', "SELECT 1 FROM pg_group WHERE groname = 'service_system'")).toBe(false);
  });

  it("a bootstrap that fails half-way is undone step by step, leaving the operator's own group alone", async () => {
    // The operator's group of the impersonation role's name: setup fails when it reaches that step.
    await admin('postgres', (c) => c.query('CREATE GROUP readers_of_the_operator'));
    const p = payload(true, {
      database: 'svc_compensated',
      initialDatabase: 'postgres',
      username: server.superuser,
      password: server.password,
      impersonation: { enabled: true, role: 'readers_of_the_operator' },
    });
    const applied: string[] = [];
    const failure = await connector
      .bootstrap({
        integrationId: 3,
        payload: p,
        progress: { done: [], record: async (...s) => void applied.push(...s) },
      })
      .then(
        () => undefined,
        (error: Error) => error,
      );
    expect(failure?.name).toBe('PlatformOperationError');
    expect(failure?.message).toMatch(
      /^step impersonation-group \(group readers_of_the_operator\) failed at CREATE GROUP/,
    );
    expect(applied).toEqual([
      'system-group',
      'system-group-member',
      'database',
      'database-closed',
      'database-grant',
    ]);
    expect(
      await exists('postgres', 'SELECT 1 FROM pg_database WHERE datname = $1', ['svc_compensated']),
    ).toBe(true);

    const undone: string[] = [];
    await connector.compensate?.({
      integrationId: 3,
      operation: 'create',
      payload: p,
      applied,
      progress: { done: [], record: async (...s) => void undone.push(...s) },
    });
    expect([...undone].sort()).toEqual([...applied].sort());
    expect(
      await exists('postgres', 'SELECT 1 FROM pg_database WHERE datname = $1', ['svc_compensated']),
    ).toBe(false);
    expect(await exists('postgres', "SELECT 1 FROM pg_group WHERE groname = 'service_system'")).toBe(false);
    expect(await exists('postgres', "SELECT 1 FROM pg_group WHERE groname = 'readers_of_the_operator'")).toBe(
      true,
    );
    await admin('postgres', (c) => c.query('DROP GROUP readers_of_the_operator'));
  });
});

describe('manual setup on PostgreSQL', () => {
  it('the generated scripts, run as a superuser, satisfy validation and bootstrap; the delete script removes all', async () => {
    const p = payload(false, {
      database: 'svc_manual',
      username: 'svc_user',
      password: "It's-a-secret;--",
      impersonation: { enabled: true },
    });
    const before = await connector.validate({ operation: 'create', payload: p });
    expect(before[0]).toMatchObject({ name: 'Initial Validation: Basic Connection Test', status: 'failed' });

    const operator = {
      host: server.host,
      port: server.port,
      database: 'postgres',
      connectArgs: 'sslmode=disable',
      credentials: privileged(),
    };
    await runScript(clusterDriver, operator, await scriptFor('initial-create', p));
    await runScript(clusterDriver, operator, await scriptFor('create', p));

    const after = await connector.validate({ operation: 'create', payload: p });
    expect(failedTests(after)).toEqual([]);
    expect(after.find((t) => t.name === 'Validate Manual: Setup Objects Exist')?.status).toBe('passed');
    await connector.bootstrap({ integrationId: 3, payload: p });

    // The system user owns the database and schemas; it cannot create databases itself.
    expect(
      await exists(
        'postgres',
        "SELECT 1 FROM pg_user WHERE usename = 'svc_user' AND NOT usesuper AND NOT usecreatedb",
      ),
    ).toBe(true);

    const changed = payload(false, {
      ...p.config,
      password: 'N3w-secret',
      impersonation: { enabled: false },
    });
    await runScript(clusterDriver, operator, await scriptFor('edit', changed, p));
    expect(
      failedTests(await connector.validate({ operation: 'edit', payload: changed, previous: p })),
    ).toEqual([]);
    expect(await exists('postgres', "SELECT 1 FROM pg_group WHERE groname = 'service_impersonation'")).toBe(
      false,
    );

    await connector.teardown({ integrationId: 3, payload: changed });
    expect(await exists('postgres', "SELECT 1 FROM pg_user WHERE usename = 'svc_user'")).toBe(true);
    await runScript(clusterDriver, operator, await scriptFor('delete', changed));
    expect(await exists('postgres', "SELECT 1 FROM pg_user WHERE usename = 'svc_user'")).toBe(false);
    expect(await exists('postgres', 'SELECT 1 FROM pg_database WHERE datname = $1', ['svc_manual'])).toBe(
      false,
    );
    expect(await exists('postgres', "SELECT 1 FROM pg_group WHERE groname = 'service_system'")).toBe(false);
  });
});

describe('connection failures on PostgreSQL', () => {
  const base = () => ({
    database: 'x',
    initialDatabase: 'postgres',
    username: server.superuser,
    password: server.password,
  });

  it('a wrong password is an authentication failure, not a 500', async () => {
    const tests = await connector.validate({
      operation: 'create',
      payload: payload(true, { ...base(), password: 'wrong' }),
    });
    expect(tests[0]).toMatchObject({
      status: 'failed',
      message: expect.stringMatching(/authentication .* failed/),
    });
    expect(JSON.stringify(tests)).not.toContain('wrong');
  });

  it('TLS required against a server without TLS is a TLS failure', async () => {
    const tests = await connector.validate({
      operation: 'create',
      payload: payload(true, { ...base(), connectArgs: 'sslmode=verify-full' }),
    });
    expect(tests[0]).toMatchObject({ status: 'failed', message: expect.stringMatching(/TLS/) });
  });

  it('a missing initial database is reported as such', async () => {
    const tests = await connector.validate({
      operation: 'create',
      payload: payload(true, { ...base(), initialDatabase: 'no_such_db' }),
    });
    expect(tests[0]).toMatchObject({ status: 'failed', message: expect.stringMatching(/does not exist/) });
  });
});

describe('assurance on PostgreSQL', () => {
  const setup = () =>
    payload(true, {
      database: 'svc_assured',
      initialDatabase: 'postgres',
      username: server.superuser,
      password: server.password,
      impersonation: { enabled: true, role: 'assured_readers' },
    });
  const assure = (p: SqlPayload) => {
    if (!connector.assure) throw new Error('the ClusterWarehouse connector has no assurance');
    return connector.assure({ integrationId: 10, payload: p });
  };
  const status = (tests: { name: string; status: string }[], name: string) =>
    tests.find((t) => t.name === name)?.status;

  it('finds what was dropped or revoked out of band, repairs it, and reports extra grants without revoking them', async () => {
    const p = setup();
    await connector.bootstrap({ integrationId: 10, payload: p });

    const clean = await assure(p);
    expect(clean.findings).toEqual([]);
    expect(status(clean.tests, 'Assurance: Setup Objects And Grants In Place')).toBe('passed');
    expect(status(clean.tests, 'Assurance: No Unplanned Privileges')).toBe('passed');

    // A DBA drops the impersonation group, revokes a schema grant and reopens the database.
    await admin('svc_assured', (c) =>
      c.query('REVOKE ALL ON SCHEMA service_metadata FROM GROUP service_system'),
    );
    await admin('svc_assured', (c) =>
      c.query('REVOKE USAGE ON SCHEMA service_policies FROM assured_readers'),
    );
    await admin('svc_assured', (c) => c.query('DROP GROUP assured_readers'));
    await admin('postgres', (c) => c.query('GRANT CONNECT ON DATABASE svc_assured TO PUBLIC'));
    const drifted = await assure(p);
    expect(drifted.findings.map((f) => f.step).sort()).toEqual(
      [
        'database-closed',
        'impersonation-grant',
        'impersonation-group',
        'schema-grant:service_metadata',
      ].sort(),
    );
    expect(drifted.findings.find((f) => f.step === 'impersonation-group')).toMatchObject({
      kind: 'missing',
      object: 'group assured_readers',
      expected: 'exists, made by the setup',
      found: 'absent',
    });
    expect(
      drifted.tests.find((t) => t.name === 'Assurance: Setup Objects And Grants In Place'),
    ).toMatchObject({
      status: 'failed',
      message: expect.stringContaining(
        'group assured_readers: expected exists, made by the setup, found absent',
      ),
    });

    // The repair script recreates exactly those, in plan order; run by the operator it heals.
    const script = await repairScriptFor(
      p,
      drifted.findings.flatMap((f) => f.step ?? []),
    );
    const statements = script.sections.flatMap((s) => s.statements);
    expect(statements).toEqual([
      'REVOKE ALL ON DATABASE "svc_assured" FROM PUBLIC',
      'CREATE GROUP "assured_readers"',
      'GRANT ALL ON SCHEMA "service_metadata" TO GROUP "service_system"',
      'GRANT USAGE ON SCHEMA "service_policies" TO GROUP "assured_readers"',
    ]);
    for (const section of script.sections)
      await runScript(
        clusterDriver,
        {
          host: server.host,
          port: server.port,
          database: section.database ?? 'postgres',
          connectArgs: 'sslmode=disable',
          credentials: privileged(),
        },
        { title: script.title, sections: [section] },
      );
    expect((await assure(p)).findings).toEqual([]);

    // Automatic repair runs the same steps through the connector.
    await admin('postgres', (c) => c.query('ALTER GROUP service_system DROP USER cw_admin'));
    const lost = await assure(p);
    expect(lost.findings.map((f) => f.step)).toEqual(['system-group-member']);
    await connector.repair?.({ integrationId: 10, payload: p, steps: ['system-group-member'] });
    expect((await assure(p)).findings).toEqual([]);

    // Privilege creep: reported as a warning naming the grant, never revoked.
    await admin('postgres', (c) => c.query('GRANT CREATE ON DATABASE postgres TO service_system'));
    await admin('svc_assured', (c) => c.query('GRANT CREATE ON SCHEMA public TO assured_readers'));
    const crept = await assure(p);
    expect(crept.findings.filter((f) => f.kind === 'missing')).toEqual([]);
    expect(crept.findings.map((f) => f.object).sort()).toEqual([
      'grant CREATE on database postgres to group service_system',
      'grant CREATE on schema public to group assured_readers',
    ]);
    expect(crept.tests.find((t) => t.name === 'Assurance: No Unplanned Privileges')).toMatchObject({
      status: 'warning',
      message: expect.stringContaining('grant CREATE on database postgres to group service_system'),
    });
    expect(
      await exists(
        'postgres',
        "SELECT 1 WHERE has_database_privilege('service_system', 'postgres', 'CREATE')",
      ),
    ).toBe(true);

    // The service never removes a grant it did not make: the operator takes it back first.
    await admin('postgres', (c) => c.query('REVOKE CREATE ON DATABASE postgres FROM service_system'));
    await connector.teardown({ integrationId: 10, payload: p, privilegedCredentials: privileged() });
  });

  it('an unreachable server is one failed check naming the reason', async () => {
    const result = await assure(payload(true, { ...setup().config, port: 1 }));
    expect(result.findings).toEqual([]);
    expect(result.tests[0]).toMatchObject({
      status: 'failed',
      message: expect.stringMatching(/refused|unreachable/),
    });
    expect(result.tests.slice(1).map((t) => t.status)).toEqual(['skipped', 'skipped']);
  });
});
