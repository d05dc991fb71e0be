/**
 * Continuous connection assurance through the local cloud and the sandbox, for CloudWarehouse
 * and ClusterWarehouse: checks run with the operator CLI's `integrations check` (the suite's
 * cloud runs no periodic round; test/hardening/assurance-schedule.test.ts covers the schedule).
 * - after setup a check passes and GET shows `lastCheckedAt`;
 * - a role the plan created, dropped with `sandbox run-script`, is a finding naming it; the
 *   status is `recurringValidationError`; the repair script, run with `sandbox run-script`,
 *   restores it and the next check is `enabled`;
 * - `POST /integrations/{id}/repair` does the same for an automatic integration (`editing` while
 *   it runs), and is refused (409) unless the integration is in `recurringValidationError`;
 * - a manual GRANT to the service's role is privilege creep: a warning, never revoked;
 * - PUT and DELETE work on `recurringValidationError` as on `enabled`;
 * - a check of an integration in flight is skipped and never overwrites the newer status.
 */
import { describe, expect, inject, it } from 'vitest';
import { useLocalCloudEnv } from '../../support/api';
import { runCli } from '../../support/cli';
import { deleteBodies, payloads, uid } from '../../unit/integrations/fixtures';
import { api, settle } from './helpers';

type Checked = 'CloudWarehouse' | 'ClusterWarehouse';
/** The role (group) each type's plan creates first, as the sandbox's DROP names it. */
const ROLE: Record<Checked, { drop: string; grant: string; object: string; step: string }> = {
  CloudWarehouse: {
    drop: 'DROP ROLE "SERVICE_SYSTEM_ROLE";',
    grant: 'GRANT CREATE DATABASE ON ACCOUNT TO ROLE "SERVICE_SYSTEM_ROLE";',
    object: 'role SERVICE_SYSTEM_ROLE',
    step: 'system-role',
  },
  ClusterWarehouse: {
    drop: 'DROP GROUP "service_system";',
    grant: 'CREATE DATABASE "other_db";\nGRANT ALL ON DATABASE "other_db" TO GROUP "service_system";',
    object: 'group service_system',
    step: 'system-group',
  },
};

/** The operator CLI, as a separate process on the test cloud's state directory. */
const cli = (args: string[], input?: string) => runCli(inject('stateDir'), args, input);

interface CheckResult {
  status: string;
  lastCheckedAt: string;
  findings: { kind: string; step?: string; object: string; expected: string; found: string }[];
  validationResults: { validationTests: { name: string; status: string; message?: string }[] };
}

/**
 * `integrations check <id>`: runs a check now and answers it once recorded. In-process through the
 * CLI's own command (a process per check would cost seconds of start-up); `viaCli` spawns it.
 */
async function check(id: string, viaCli = false): Promise<CheckResult> {
  if (viaCli) {
    const run = await cli(['integrations', 'check', id]);
    expect(run.code, run.stderr).toBe(0);
    return JSON.parse(run.stdout) as CheckResult;
  }
  useLocalCloudEnv();
  const { integrationsCommand } = await import('../../../infra/cli/integrations');
  return JSON.parse(JSON.stringify(await integrationsCommand(['check', id]))) as CheckResult;
}

async function runScript(type: Checked, host: string, script: string) {
  const run = await cli(['sandbox', 'run-script', '--type', type, '--host', host], script);
  expect(run.code, run.stderr).toBe(0);
}

async function enabledIntegration(type: Checked) {
  const body = payloads(uid())[type] as { type: string; config: Record<string, unknown> };
  const res = await api('POST', '/integrations', { body });
  expect(res.status, res.text).toBe(202);
  const id = String(res.body.id);
  expect(await settle(id, 120_000)).toBe('enabled');
  return { id, body, host: String(body.config.host) };
}

const testOf = (result: CheckResult, name: string) =>
  result.validationResults.validationTests.find((t) => t.name === name);

describe.concurrent.each(['CloudWarehouse', 'ClusterWarehouse'] as const)('assurance of a %s', (type) => {
  it('a dropped role is found by name; the repair script run by the operator heals it', async () => {
    const { id, host, body } = await enabledIntegration(type);
    const first = await check(id, true);
    expect(first).toMatchObject({ status: 'enabled', findings: [] });
    expect(testOf(first, 'Assurance: Setup Objects And Grants In Place')?.status).toBe('passed');
    const shown = await api('GET', `/integrations/${id}`);
    expect(shown.body.lastCheckedAt).toBe(first.lastCheckedAt);

    // Repair is refused while the integration is healthy.
    const early = await api('POST', `/integrations/${id}/scripts/repair`);
    expect(early.status).toBe(409);
    expect(early.body.message).toMatch(/recurringValidationError/);

    await runScript(type, host, ROLE[type].drop);
    const drifted = await check(id);
    expect(drifted.status).toBe('recurringValidationError');
    expect(drifted.findings).toContainEqual({
      kind: 'missing',
      step: ROLE[type].step,
      object: ROLE[type].object,
      expected: 'exists, made by the setup',
      found: 'absent',
    });
    expect(testOf(drifted, 'Assurance: Setup Objects And Grants In Place')).toMatchObject({
      status: 'failed',
      message: expect.stringContaining(
        `${ROLE[type].object}: expected exists, made by the setup, found absent`,
      ),
    });
    const detail = await api('GET', `/integrations/${id}`);
    expect(detail.body.status).toBe('recurringValidationError');
    expect(detail.body.findings).toEqual(drifted.findings);

    const script = await api('POST', `/integrations/${id}/scripts/repair`, {
      headers: { accept: 'text/plain' },
    });
    expect(script.status, script.text).toBe(200);
    expect(script.text).toMatch(
      ROLE[type].step === 'system-role'
        ? /^CREATE ROLE "SERVICE_SYSTEM_ROLE"/m
        : /^CREATE GROUP "service_system"/m,
    );
    expect(script.text).not.toContain(String(body.config.password));
    await runScript(type, host, script.text);
    expect(await check(id)).toMatchObject({ status: 'enabled', findings: [] });
  });

  it('POST /repair re-runs the missing steps through the workflow and checks again', async () => {
    const { id, host } = await enabledIntegration(type);
    const refused = await api('POST', `/integrations/${id}/repair`);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ statusCode: 409, error: 'Conflict' });

    await runScript(type, host, ROLE[type].drop);
    expect((await check(id)).status).toBe('recurringValidationError');
    const repair = await api('POST', `/integrations/${id}/repair`);
    expect(repair.status, repair.text).toBe(202);
    expect(repair.body.status).toBe('editing');
    expect(await settle(id, 120_000)).toBe('enabled');
    const healed = await api('GET', `/integrations/${id}`);
    expect(healed.body.findings ?? []).toEqual([]);
    expect(await check(id)).toMatchObject({ status: 'enabled', findings: [] });
  });

  it('an extra grant to the service role is reported as privilege creep and left in place', async () => {
    const { id, host } = await enabledIntegration(type);
    await runScript(type, host, ROLE[type].grant);
    const crept = await check(id);
    expect(crept.status).toBe('enabled');
    expect(crept.findings).toHaveLength(1);
    expect(crept.findings[0]).toMatchObject({
      kind: 'unplanned',
      expected: 'not granted by the setup',
      found: 'granted',
    });
    expect(testOf(crept, 'Assurance: No Unplanned Privileges')).toMatchObject({
      status: 'warning',
      message: expect.stringContaining('privilege creep'),
    });
    // Reported, not revoked: the next check still sees it.
    expect((await check(id)).findings).toEqual(crept.findings);
  });

  it('PUT and DELETE work on an integration in recurringValidationError', async () => {
    const { id, host, body } = await enabledIntegration(type);
    await runScript(type, host, ROLE[type].drop);
    expect((await check(id)).status).toBe('recurringValidationError');
    // An edit is accepted as on enabled.
    const put = await api('PUT', `/integrations/${id}`, { body });
    expect(put.status, put.text).toBe(202);
    expect(await settle(id, 120_000)).toBe('enabled');
    // The edit did not touch the drift: the next check finds it again.
    expect((await check(id)).status).toBe('recurringValidationError');
    const del = await api('DELETE', `/integrations/${id}`, { body: deleteBodies(uid())[type] });
    expect(del.status, del.text).toBe(202);
    expect(await settle(id, 120_000)).toBe('deleted');
  });
});

describe('checks and in-flight operations', () => {
  it('a check of an integration in flight is skipped; a check that lost the race records nothing', async () => {
    useLocalCloudEnv();
    const { checkIntegration, recordCheck } = await import('../../../shared/integrations/assurance/check');
    const { getIntegration, updateIntegration } = await import(
      '../../../shared/integrations/store/integrations'
    );
    const { id } = await enabledIntegration('CloudWarehouse');
    const record = await getIntegration(Number(id));
    if (!record) throw new Error('integration not found');
    // In flight (a PUT's workflow running): the check does nothing.
    await updateIntegration(record.id, { version: record.version }, { set: { status: 'editing' } });
    expect(await checkIntegration(record.id, new Date().toISOString())).toEqual({
      checked: false,
      reason: 'not checked in its status',
    });
    // A check that read version N records nothing once a newer write moved the integration.
    const moved = await getIntegration(record.id);
    if (!moved) throw new Error('integration not found');
    await updateIntegration(moved.id, { version: moved.version }, { set: { status: 'enabled' } });
    const stale = await recordCheck(
      moved,
      {} as never,
      { tests: [{ name: 'x', status: 'failed', message: 'stale' }], findings: [] },
      new Date().toISOString(),
      { version: moved.version, status: 'enabled' },
    );
    expect(stale).toBeUndefined();
    const after = await getIntegration(record.id);
    expect(after?.status).toBe('enabled');
    expect(after?.lastCheckRound).toBeUndefined();
  });
});
