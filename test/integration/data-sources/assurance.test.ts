/**
 * The periodic check of an ObjectStore integration also checks its data sources (issue 38, item
 * 4): a prefix removed from the sandbox with `sandbox s3 rm` is a finding naming the data source
 * and moves the integration to recurringValidationError; put back, the next check passes. And the
 * `sandbox s3 put|rm` commands themselves, which refuse to run, naming STATE_DIR, without a cloud.
 */
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { useLocalCloudEnv } from '../../support/api';
import { runCli } from '../../support/cli';
import { tempDir } from '../../support/temp';
import { folder, objectStore, ownAccount, registered, uid } from './helpers';

interface CheckResult {
  status: string;
  findings: { kind: string; object: string; expected: string; found: string }[];
  validationResults: { validationTests: { name: string; status: string; message?: string }[] };
}

/** `integrations check <id>` in-process (a check message on the queue, answered once recorded). */
async function check(id: number): Promise<CheckResult> {
  useLocalCloudEnv();
  const { integrationsCommand } = await import('../../../infra/cli/integrations');
  return JSON.parse(JSON.stringify(await integrationsCommand(['check', String(id)]))) as CheckResult;
}

/** `sandbox s3 <action>` on the tier's cloud, or on `stateDir`. */
const s3 = (
  action: string,
  where: { account: string; region: string },
  path: string,
  stateDir = inject('stateDir'),
) =>
  runCli(stateDir, [
    'sandbox',
    's3',
    action,
    '--account',
    where.account,
    '--region',
    where.region,
    '--path',
    path,
  ]);

describe('sandbox s3 put|rm', () => {
  it('puts and removes objects of an account and region, printing the path', async () => {
    const where = { account: ownAccount(), region: 'eu-west-1' };
    const path = `s3://cli-${uid()}/data/x.csv`;
    const put = await s3('put', where, path);
    expect(put.code, put.stderr).toBe(0);
    expect(JSON.parse(put.stdout)).toEqual({ path });
    const rm = await s3('rm', where, path);
    expect(rm.code, rm.stderr).toBe(0);
    expect(JSON.parse(rm.stdout)).toEqual({ path, removed: 1 });
    const again = await s3('rm', where, path);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`nothing at ${path}`);
    const bad = await s3('put', where, 'x');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--path must be an s3:// path');
  });

  it('refuses to run, naming STATE_DIR, when no local cloud runs there', async () => {
    const stateDir = tempDir('causeway-no-cloud-s3-');
    for (const action of ['put', 'rm']) {
      const run = await s3(
        action,
        { account: '123456789012', region: 'us-east-1' },
        's3://bucket/x',
        stateDir,
      );
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(
        `no local cloud is running on STATE_DIR ${stateDir} (no ${join(stateDir, 'endpoints.json')})`,
      );
    }
  });
});

describe('the periodic check locates every data source', () => {
  it('a vanished prefix is a finding naming the data source; recurringValidationError until it is back', async () => {
    const os = await objectStore({ account: ownAccount() });
    const prefix = await folder(os);
    const other = await folder(os);
    const name = `watched-${uid()}`;
    const id = await registered(os, name, prefix);
    await registered(os, `steady-${uid()}`, other);

    const healthy = await check(os.id);
    expect(healthy.status).toBe('enabled');
    expect(healthy.validationResults.validationTests).toContainEqual(
      expect.objectContaining({ name: 'Assurance: Data Sources Exist', status: 'passed' }),
    );

    const rm = await s3('rm', os, `${prefix}object.csv`);
    expect(rm.code, rm.stderr).toBe(0);
    const failing = await check(os.id);
    expect(failing.status).toBe('recurringValidationError');
    const object = `data source ${id} "${name}" (${prefix})`;
    expect(failing.findings).toEqual([
      { kind: 'missing', object, expected: `${prefix} exists`, found: 'nothing at that path' },
    ]);
    expect(failing.validationResults.validationTests).toContainEqual({
      name: 'Assurance: Data Sources Exist',
      status: 'failed',
      message: `${object} no longer exists`,
    });

    const put = await s3('put', os, `${prefix}back.csv`);
    expect(put.code, put.stderr).toBe(0);
    expect((await check(os.id)).status).toBe('enabled');
  });
});
