/**
 * Assurance on the sandbox, through the generic SQL connector: after a setup, every object and
 * grant of the plan is in place; out-of-band drops and revokes are found by object (what was
 * expected, what was found); an extra grant to the service's own role is privilege creep,
 * reported as a warning; repair re-runs exactly the missing steps.
 */

import { beforeAll, describe, expect, it } from 'vitest';
import { hostOf, type SqlPayload } from '../../../shared/platforms';
import { parseAcl } from '../../../shared/platforms/cluster-warehouse/assurance';
import { sandboxConnector } from '../../../shared/platforms/connectors';
import { runOnSandbox } from '../../../shared/platforms/sandbox/run-script';
import { withState } from '../../../shared/platforms/sandbox/store';
import { tempDir } from '../../support/temp';
import { cloud, cluster } from './fixtures';

beforeAll(() => {
  process.env.SANDBOX_DIR = tempDir('causeway-assurance-');
});

let n = 0;
const onHost = <T extends SqlPayload>(p: T): T =>
  ({ ...p, config: { ...p.config, host: `assure-${++n}-${Date.now()}.example.com` } }) as T;
const statusOf = (tests: { name: string; status: string }[], name: string) =>
  tests.find((t) => t.name === name);

describe('assurance checks on the sandbox', () => {
  it('CloudWarehouse: in place after setup; a dropped role and a revoked grant are found; repair restores them', async () => {
    const p = onHost(cloud(true, { impersonation: { enabled: true } }));
    const c = await sandboxConnector(p.type);
    await c.bootstrap({ integrationId: 1, payload: p });
    const healthy = await c.assure?.({ integrationId: 1, payload: p });
    expect(healthy?.findings).toEqual([]);
    expect(statusOf(healthy?.tests ?? [], 'Assurance: Setup Objects And Grants In Place')?.status).toBe(
      'passed',
    );
    expect(statusOf(healthy?.tests ?? [], 'Assurance: No Unplanned Privileges')?.status).toBe('passed');

    await runOnSandbox(p.type, hostOf(p), [
      {
        note: '',
        statements: [
          'DROP ROLE "SERVICE_IMPERSONATION"',
          'REVOKE APPLY TAG ON ACCOUNT FROM ROLE "SERVICE_SYSTEM_ROLE"',
          'REVOKE USAGE ON WAREHOUSE "COMPUTE_WH" FROM ROLE "SERVICE_SYSTEM_ROLE"',
        ],
      },
    ]);
    const drifted = await c.assure?.({ integrationId: 1, payload: p });
    expect(drifted?.findings).toEqual(
      expect.arrayContaining([
        {
          kind: 'missing',
          step: 'impersonation-role',
          object: 'role SERVICE_IMPERSONATION',
          expected: 'exists, made by the setup',
          found: 'absent',
        },
        expect.objectContaining({
          kind: 'missing',
          step: 'warehouse-usage',
          expected: 'granted by the setup',
          found: 'not granted',
        }),
      ]),
    );
    expect(statusOf(drifted?.tests ?? [], 'Assurance: Setup Objects And Grants In Place')).toMatchObject({
      status: 'failed',
      message: expect.stringContaining(
        'role SERVICE_IMPERSONATION: expected exists, made by the setup, found absent',
      ),
    });

    await c.repair?.({
      integrationId: 1,
      payload: p,
      steps: (drifted?.findings ?? []).flatMap((f) => (f.step ? [f.step] : [])),
    });
    expect((await c.assure?.({ integrationId: 1, payload: p }))?.findings).toEqual([]);
  });

  it('ClusterWarehouse: an extra grant to the service group is privilege creep, reported, not a failure', async () => {
    const p = onHost(cluster(true));
    const c = await sandboxConnector(p.type);
    await c.bootstrap({ integrationId: 2, payload: p });
    await runOnSandbox(p.type, hostOf(p), [
      {
        note: '',
        database: 'service_db',
        statements: ['GRANT USAGE ON SCHEMA "service_metadata" TO GROUP "service_system"'],
      },
      {
        note: '',
        statements: ['CREATE GROUP "auditors"', 'ALTER GROUP "auditors" ADD USER "service_system_user"'],
      },
    ]);
    const result = await c.assure?.({ integrationId: 2, payload: p });
    expect(statusOf(result?.tests ?? [], 'Assurance: Setup Objects And Grants In Place')?.status).toBe(
      'passed',
    );
    expect(statusOf(result?.tests ?? [], 'Assurance: No Unplanned Privileges')).toMatchObject({
      status: 'warning',
      message: expect.stringContaining(
        'grant USAGE on schema service_db.service_metadata to group service_system',
      ),
    });
    expect(result?.findings.every((f) => f.kind === 'unplanned')).toBe(true);
  });

  it('an outage makes the check a failed connection, and ends with it', async () => {
    const p = onHost(cluster(true));
    const c = await sandboxConnector(p.type);
    await c.bootstrap({ integrationId: 3, payload: p });
    await withState(p.type, hostOf(p), (s) => {
      s.outage = true;
    });
    const down = await c.assure?.({ integrationId: 3, payload: p });
    expect(down?.tests[0]).toMatchObject({
      status: 'failed',
      message: expect.stringMatching(/could not reach/),
    });
    await withState(p.type, hostOf(p), (s) => {
      s.outage = false;
    });
    expect((await c.assure?.({ integrationId: 3, payload: p }))?.tests[0]?.status).toBe('passed');
  });
});

describe('ClusterWarehouse ACL text', () => {
  it('reads PostgreSQL and Redshift items, quoted names and PUBLIC', () => {
    expect(parseAcl('{=Tc/admin,admin=CTc/admin,service_system=CTc/admin}')).toEqual([
      { grantee: '', privileges: 'Tc' },
      { grantee: 'admin', privileges: 'CTc' },
      { grantee: 'service_system', privileges: 'CTc' },
    ]);
    expect(parseAcl('{"group service_system=CT/admin","\\"odd, name\\"=U*/admin"}')).toEqual([
      { grantee: 'service_system', privileges: 'CT' },
      { grantee: 'odd, name', privileges: 'U*' },
    ]);
    expect(parseAcl('{}')).toEqual([]);
  });
});
