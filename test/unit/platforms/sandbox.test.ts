import { beforeAll, describe, expect, it } from 'vitest';
import { sandboxConnector } from '../../../shared/platforms/connectors';
import type { PlatformConnector, PlatformPayload } from '../../../shared/platforms/port';
import { runOnSandbox } from '../../../shared/platforms/sandbox/run-script';
import { readState } from '../../../shared/platforms/sandbox/store';
import { type SqlPayload, scriptFor } from '../../../shared/platforms/scripts';
import { sandboxLifecycle, sandboxSuite } from '../../support/platform-suites';
import { tempDir } from '../../support/temp';
import { analytics, cloud, cluster, lakehouse, lakehouseOAuth, payload } from './fixtures';

beforeAll(() => {
  process.env.SANDBOX_DIR = tempDir('causeway-sandbox-');
});

let hostCounter = 0;
/** A fresh host per test, so tests do not share remote state. */
function onHost<T extends SqlPayload>(p: T, host?: string): T {
  const name = host ?? `h${++hostCounter}-${Date.now()}.example.com`;
  if (p.type === 'Lakehouse') return { ...p, config: { ...p.config, workspaceUrl: `https://${name}` } } as T;
  return { ...p, config: { ...p.config, host: name } } as T;
}
const hostOf = (p: SqlPayload) =>
  p.type === 'Lakehouse' ? new URL(p.config.workspaceUrl).hostname : p.config.host;
/** Objects the service or a script created (pre-existing platform accounts excluded). */
const created = (p: SqlPayload) => {
  const state = readState(p.type, hostOf(p));
  return {
    objects: Object.values(state.objects).filter((o) => o.attrs.preexisting !== true),
    grants: state.grants,
    members: state.members,
  };
};
const objectCount = (p: SqlPayload) => created(p).objects.length;
const statusOf = (tests: { name: string; status: string }[], name: string) =>
  tests.find((t) => t.name === name)?.status;

function connector(p: PlatformPayload): Promise<PlatformConnector> {
  return sandboxConnector(p.type);
}

const BASIC = 'Initial Validation: Basic Connection Test';

describe('sandbox triggers', () => {
  it('a host ending in .unreachable.example fails the connection test (and skips the rest)', async () => {
    const p = onHost(cluster(true), 'db.unreachable.example');
    const tests = await (await connector(p)).validate({ operation: 'create', payload: p });
    expect(tests[0]).toMatchObject({
      name: BASIC,
      status: 'failed',
      message: expect.stringMatching(/could not reach db\.unreachable\.example/),
    });
    expect(tests.slice(1).every((t) => t.status === 'skipped')).toBe(true);
  });

  it('a Lakehouse workspace on an unreachable host fails Basic Connection Test and the metastore check', async () => {
    const p = onHost(lakehouse(true), 'dbc.unreachable.example');
    const tests = await (await connector(p)).validate({ operation: 'create', payload: p });
    expect(tests[0]).toMatchObject({ name: 'Basic Connection Test', status: 'failed' });
    expect(tests[0]?.result).toEqual([
      expect.objectContaining({ host: 'dbc.unreachable.example', status: 'failed' }),
    ]);
    expect(statusOf(tests, 'Metastore validation')).toBe('failed');
  });

  it.each([
    ['ClusterWarehouse', cluster(true, { password: 'invalid-credentials' })],
    ['CloudWarehouse', cloud(true, { password: 'invalid-credentials' })],
    ['AnalyticsWarehouse', analytics(true, { password: 'invalid-credentials' })],
    ['Lakehouse', lakehouse(true, { token: 'invalid-credentials' })],
  ] as const)(
    '%s: a credential equal to invalid-credentials fails authentication, without echoing it',
    async (_t, base) => {
      const p = onHost(base);
      const tests = await (await connector(p)).validate({ operation: 'create', payload: p });
      expect(tests[0]?.status).toBe('failed');
      expect(tests[0]?.message).toMatch(/authentication .* failed/);
      expect(JSON.stringify(tests)).not.toContain('invalid-credentials');
    },
  );

  it('the other types honour invalid-credentials too', async () => {
    const objectStore = payload({
      type: 'ObjectStore',
      autoBootstrap: false,
      config: {
        name: 'lake',
        cloudAccountId: '123456789012',
        cloudRegion: 'us-east-1',
        cloudLocationRole: 'arn:role',
        cloudLocationPath: 's3://bucket/prefix',
        authenticationType: 'accessKey',
        cloudAccessKeyId: 'AKIA',
        cloudSecretAccessKey: 'invalid-credentials',
      },
    } as never) as unknown as PlatformPayload;
    const tests = await (await sandboxConnector('ObjectStore')).validate({
      operation: 'create',
      payload: objectStore,
    });
    expect(tests[0]?.status).toBe('failed');
  });

  it('fail-bootstrap passes validation, then bootstrap fails half-way and teardown removes the partial state', async () => {
    const p = onHost(cluster(true, { password: 'fail-bootstrap', impersonation: { enabled: true } }));
    const c = await connector(p);
    const tests = await c.validate({ operation: 'create', payload: p });
    expect(tests.every((t) => t.status !== 'failed')).toBe(true);
    await expect(c.bootstrap({ integrationId: 1, payload: p })).rejects.toMatchObject({
      name: 'PlatformOperationError',
    });
    expect(objectCount(p)).toBeGreaterThan(0);
    await c.teardown({
      integrationId: 1,
      payload: p,
      privilegedCredentials: { authenticationType: 'userPassword', username: 'admin', password: 'pw' },
    });
    expect(objectCount(p)).toBe(0);
  });

  it('fail-bootstrap makes an automatic edit fail', async () => {
    const before = onHost(cloud(true));
    const c = await connector(before);
    await c.bootstrap({ integrationId: 2, payload: before });
    const after = {
      ...before,
      config: { ...before.config, password: 'fail-bootstrap', audit: { enabled: true } },
    } as SqlPayload;
    await expect(c.applyEdit({ integrationId: 2, previous: before, payload: after })).rejects.toMatchObject({
      name: 'PlatformOperationError',
    });
  });

  it('privileged delete credentials with password fail-teardown make teardown fail (state left for a retry)', async () => {
    const p = onHost(analytics(true, { impersonation: { enabled: true } }));
    const c = await connector(p);
    await c.bootstrap({ integrationId: 3, payload: p });
    const creds = { authenticationType: 'userPassword', username: 'admin', password: 'fail-teardown' };
    const validation = await c.validate({ operation: 'delete', payload: p, privilegedCredentials: creds });
    expect(validation[0]?.status).toBe('passed');
    await expect(
      c.teardown({ integrationId: 3, payload: p, privilegedCredentials: creds }),
    ).rejects.toMatchObject({ name: 'PlatformOperationError' });
    expect(objectCount(p)).toBeGreaterThan(0);
    await c.teardown({ integrationId: 3, payload: p, privilegedCredentials: { ...creds, password: 'ok' } });
    expect(objectCount(p)).toBe(0);
  });
});

/**
 * Every registered SQL type's golden cases (its examples, shared/platforms/<type>/examples.ts),
 * automatic and manual, through their lifecycle on the sandbox (test/support/platform-suites.ts).
 */
sandboxSuite();

describe('automatic setup', () => {
  it('Lakehouse with OAuth M2M and audit: the lifecycle no golden case holds', () =>
    sandboxLifecycle(lakehouseOAuth(true, { audit: { enabled: true } })));

  it('an automatic edit applies only the change and the result matches a fresh setup of the new config', async () => {
    const before = onHost(cluster(true));
    const after = {
      ...before,
      config: { ...before.config, impersonation: { enabled: true, role: 'readers' } },
    } as SqlPayload;
    const c = await connector(before);
    await c.bootstrap({ integrationId: 11, payload: before });
    await c.applyEdit({ integrationId: 11, previous: before, payload: after });
    const edited = readState(after.type, hostOf(after));
    const fresh = onHost(after);
    await c.bootstrap({ integrationId: 12, payload: fresh });
    const created = readState(fresh.type, hostOf(fresh));
    expect(Object.keys(edited.objects).sort()).toEqual(Object.keys(created.objects).sort());
    expect([...edited.grants].sort()).toEqual([...created.grants].sort());
  });
});

describe('manual setup', () => {
  it('Lakehouse with OAuth M2M, every feature off: the lifecycle no golden case holds', () =>
    sandboxLifecycle(lakehouseOAuth(false)));

  it('a script-created user must present its own password', async () => {
    const p = onHost(cluster(false));
    await runOnSandbox(p.type, hostOf(p), await scriptFor('initial-create', p));
    const wrong = { ...p, config: { ...p.config, password: 'not-the-password' } } as SqlPayload;
    const tests = await (await connector(p)).validate({ operation: 'create', payload: wrong });
    expect(tests[0]).toMatchObject({ status: 'failed', message: expect.stringMatching(/authentication/) });
  });

  it('a user created by a script is not privileged: automatic setup as it fails the bootstrap grants test', async () => {
    const manual = onHost(cluster(false));
    await runOnSandbox(manual.type, hostOf(manual), await scriptFor('initial-create', manual));
    const auto = {
      ...manual,
      autoBootstrap: true,
      config: { ...manual.config, database: 'other_db', initialDatabase: 'dev' },
    } as SqlPayload;
    const tests = await (await connector(auto)).validate({ operation: 'create', payload: auto });
    expect(statusOf(tests, 'Validate Automatic Bootstrap User Grants')).toBe('failed');
  });

  it('running the create step before the initial step fails like the platform would', async () => {
    const p = onHost(cluster(false));
    await expect(runOnSandbox(p.type, hostOf(p), await scriptFor('create', p))).rejects.toThrow(
      /does not exist/,
    );
  });
});

describe('sandbox concurrency', () => {
  it('parallel writers to one host never lose an update', async () => {
    const host = `concurrent-${Date.now()}.example.com`;
    await Promise.all(
      Array.from({ length: 25 }, (_, i) =>
        runOnSandbox('CloudWarehouse', host, [{ note: '', statements: [`CREATE ROLE "R${i}"`] }]),
      ),
    );
    expect(Object.keys(readState('CloudWarehouse', host).objects)).toHaveLength(25);
  });
});
