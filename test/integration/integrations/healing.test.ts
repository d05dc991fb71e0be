/**
 * Integrations that heal, through the local cloud and the sandbox, for each SQL type:
 * - a bootstrap that fails half-way (`fail-bootstrap`) is undone step by step: `createError`
 *   names the failed step, nothing the service created is left, and a PUT with good
 *   credentials reaches `enabled`;
 * - an automatic edit that fails half-way is rolled back: `editError`, the old config in effect,
 *   the remote as it was; a later PUT works;
 * - a teardown that fails half-way (`fail-teardown`) is `deleteError`, and DELETE again removes
 *   everything;
 * - when the undo fails too (`fail-compensation`), `createError` carries both reasons, a PUT is
 *   refused naming the leftovers and the cleanup script, and that script, run on the sandbox with
 *   the operator CLI, removes the leftovers and leaves the operator's accounts.
 */
import { describe, expect, inject, it } from 'vitest';
import { describeHost } from '../../../shared/platforms/sandbox/run-script';
import { useLocalCloudEnv } from '../../support/api';
import { runCli } from '../../support/cli';
import { deleteBodies, payloads, uid } from '../../unit/integrations/fixtures';
import { api, settle } from './helpers';

type SqlType = 'CloudWarehouse' | 'ClusterWarehouse' | 'AnalyticsWarehouse' | 'Lakehouse';

/**
 * An automatic integration of the type whose secret (password or token) is `secret`. An
 * AnalyticsWarehouse gets its impersonation role, so its setup has more than one step (a trigger
 * fails the step half-way through the list).
 */
function automatic(type: SqlType, secret: string, extra: Record<string, unknown> = {}) {
  const base = payloads(uid())[type] as {
    type: string;
    autoBootstrap: boolean;
    config: Record<string, unknown>;
  };
  const steps = type === 'AnalyticsWarehouse' ? { impersonation: { enabled: true } } : {};
  const body = { ...base, config: { ...base.config, ...steps, ...extra } };
  return { ...body, config: { ...body.config, ...secretOf(body, secret) } };
}

/** The secret a trigger goes in: the password, the Lakehouse token or its OAuth client secret. */
function secretOf(body: { config: Record<string, unknown> }, value: string): Record<string, unknown> {
  if (body.config.oAuthClientConfig)
    return { oAuthClientConfig: { ...(body.config.oAuthClientConfig as object), clientSecret: value } };
  return 'token' in body.config || body.config.workspaceUrl ? { token: value } : { password: value };
}

const hostOf = (body: { config: Record<string, unknown> }) =>
  String(body.config.host ?? new URL(String(body.config.workspaceUrl)).hostname);

/** What the service created on the host (the operator's pre-existing accounts aside). */
function created(type: SqlType, host: string): string[] {
  useLocalCloudEnv();
  return describeHost(type as never, host).filter((line) => !line.includes('(pre-existing account)'));
}

/** The operator CLI, as a separate process on the test cloud's state directory. */
const cli = (args: string[], input?: string) => runCli(inject('stateDir'), args, input);

async function create(body: unknown): Promise<string> {
  const res = await api('POST', '/integrations', { body });
  expect(res.status, res.text).toBe(202);
  return res.body.id as string;
}

const TYPES: SqlType[] = ['CloudWarehouse', 'ClusterWarehouse', 'AnalyticsWarehouse', 'Lakehouse'];
/** A change of each type whose edit has several steps (so a failure half-way leaves some done). */
const CHANGE: Record<SqlType, Record<string, unknown>> = {
  CloudWarehouse: { impersonation: { enabled: true }, audit: { enabled: true } },
  ClusterWarehouse: { impersonation: { enabled: true } },
  AnalyticsWarehouse: { impersonation: { enabled: true } },
  Lakehouse: { audit: { enabled: true } },
};

describe.concurrent.each(TYPES)('%s', (type) => {
  it('fail-bootstrap: createError naming the failed step, nothing left; a PUT with good credentials → enabled', async () => {
    const body = automatic(type, 'fail-bootstrap');
    const id = await create(body);
    expect(await settle(id, 120_000)).toBe('createError');
    const failed = (await api('GET', `/integrations/${id}`)).body;
    expect(failed.statusMessage).toMatch(
      /^step \S.* \(.+\) failed: the platform refused it \(a sandbox failure trigger\); the \d+ step\(s\) that ran were undone$/,
    );
    const tests = failed.validationResults.validationTests as { name: string; status: string }[];
    expect(tests).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'Remote Setup', status: 'failed' }),
        expect.objectContaining({ name: 'Undo Of The Steps That Ran', status: 'passed' }),
      ]),
    );
    expect(created(type, hostOf(body))).toEqual([]);

    const fixed = { ...body, config: { ...body.config, ...secretOf(body, `good-${uid()}`) } };
    const put = await api('PUT', `/integrations/${id}`, { body: fixed });
    expect(put.status, put.text).toBe(202);
    expect(await settle(id, 120_000)).toBe('enabled');
    expect(created(type, hostOf(body)).length).toBeGreaterThan(0);
  });

  it('a failed automatic edit is rolled back: editError, old config, remote unchanged; a later PUT works', async () => {
    const secret = `good-${uid()}`;
    // The change adds objects in more than one step (an AnalyticsWarehouse starts without its role).
    const start = { Lakehouse: oauth(), AnalyticsWarehouse: { impersonation: { enabled: false } } } as Record<
      string,
      Record<string, unknown>
    >;
    const body = automatic(type, secret, start[type] ?? {});
    const id = await create(body);
    expect(await settle(id, 120_000)).toBe('enabled');
    const before = created(type, hostOf(body));

    const breaking = {
      ...body,
      config: { ...body.config, ...CHANGE[type], ...secretOf(body, 'fail-bootstrap') },
    };
    expect((await api('PUT', `/integrations/${id}`, { body: breaking })).status).toBe(202);
    expect(await settle(id, 120_000)).toBe('editError');
    const after = (await api('GET', `/integrations/${id}`)).body;
    expect(after.statusMessage).toMatch(
      /^step \S.* failed: the platform refused it \(a sandbox failure trigger\); the \d+ step\(s\) that ran were undone$/,
    );
    for (const [key, value] of Object.entries(CHANGE[type]))
      expect(after.config[key]).not.toMatchObject(value as Record<string, unknown>);
    expect(created(type, hostOf(body))).toEqual(before);

    const working = { ...body, config: { ...body.config, ...CHANGE[type] } };
    expect((await api('PUT', `/integrations/${id}`, { body: working })).status).toBe(202);
    expect(await settle(id, 120_000)).toBe('enabled');
    expect(created(type, hostOf(body)).length).toBeGreaterThan(before.length);
  });

  it('fail-teardown: deleteError with objects left; DELETE again → deleted, nothing left', async () => {
    // A Lakehouse tears down with its own token (its DELETE takes no credentials).
    const body = automatic(type, type === 'Lakehouse' ? 'fail-teardown' : `good-${uid()}`);
    const id = await create(body);
    expect(await settle(id, 120_000)).toBe('enabled');
    // A working setup gets no cleanup script: it would drop a live integration's objects.
    const live = await api('POST', `/integrations/${id}/scripts/cleanup`);
    expect(live.status, live.text).toBe(409);
    expect(live.body).toMatchObject({ status: 'enabled' });
    expect(live.body.message).toContain(`integration ${id} is enabled: its setup is in use`);
    const credentials =
      type === 'Lakehouse'
        ? undefined
        : { ...(deleteBodies(uid())[type] as object), password: 'fail-teardown' };
    const first = await api('DELETE', `/integrations/${id}`, credentials ? { body: credentials } : {});
    expect(first.status, first.text).toBe(202);
    expect(await settle(id, 120_000)).toBe('deleteError');
    expect(created(type, hostOf(body)).length).toBeGreaterThan(0);
    // The message names the teardown statement that failed and what it left in place.
    expect((await api('GET', `/integrations/${id}`)).body.statusMessage).toMatch(
      /teardown statement \d+ of \d+ \(\S+ .*…\) failed: .+; left in place: \S+ .*…/,
    );
    // After a failed teardown the cleanup script applies.
    expect((await api('POST', `/integrations/${id}/scripts/cleanup`)).status).toBe(200);

    const again = await api('DELETE', `/integrations/${id}`, credentials ? { body: credentials } : {});
    expect(again.status, again.text).toBe(202);
    expect(await settle(id, 120_000)).toBe('deleted');
    expect(created(type, hostOf(body))).toEqual([]);
  });

  it('fail-compensation: both reasons recorded; the cleanup script for the id removes the leftovers, not the operator', async () => {
    const body = automatic(type, 'fail-compensation');
    const id = await create(body);
    expect(await settle(id, 120_000)).toBe('createError');
    const failed = (await api('GET', `/integrations/${id}`)).body;
    expect(failed.statusMessage).toMatch(
      /^step \S.* failed: .*; undoing the steps that ran failed too \(step \S.* failed: .*\); left behind: .+; POST \/integrations\/\d+\/scripts\/cleanup answers the script that removes them$/,
    );
    const tests = failed.validationResults.validationTests as { name: string; status: string }[];
    expect(tests.filter((t) => t.status === 'failed').map((t) => t.name)).toEqual(
      expect.arrayContaining(['Remote Setup', 'Undo Of The Steps That Ran']),
    );
    const host = hostOf(body);
    const leftovers = created(type, host);
    expect(leftovers.length).toBeGreaterThan(0);

    // Until the leftovers are gone, a retry is refused naming them and the cleanup script.
    const fixed = { ...body, config: { ...body.config, ...secretOf(body, `good-${uid()}`) } };
    const refused = await api('PUT', `/integrations/${id}`, { body: fixed });
    expect(refused.status).toBe(422);
    expect(JSON.stringify(refused.body.validationResults)).toContain(
      `leftover of this integration's earlier attempt; remove it with the script of POST /integrations/${id}/scripts/cleanup`,
    );

    const script = await api('POST', `/integrations/${id}/scripts/cleanup`, {
      headers: { accept: 'text/plain' },
    });
    expect(script.status).toBe(200);
    expect(script.text).not.toMatch(/^DROP (USER|LOGIN)/m);
    const run = await cli(['sandbox', 'run-script', '--type', type, '--host', host], script.text);
    expect(run.code, run.stderr).toBe(0);
    const shown = await cli(['sandbox', 'show', '--type', type, '--host', host]);
    expect(shown.code).toBe(0);
    expect(shown.stdout.split('\n').filter((l) => l && !l.includes('(pre-existing account)'))).toEqual([]);
    // The operator's own account is still there (automatic setup connected as it).
    if (type !== 'Lakehouse') expect(shown.stdout).toContain('(pre-existing account)');

    expect((await api('PUT', `/integrations/${id}`, { body: fixed })).status).toBe(202);
    expect(await settle(id, 120_000)).toBe('enabled');
  });
});

/** A Lakehouse with an OAuth service principal (its audit grants name it, so an edit has steps). */
function oauth(): Record<string, unknown> {
  return {
    authenticationType: 'oAuthM2M',
    token: undefined,
    oAuthClientConfig: {
      clientId: `sp-${uid()}`,
      authorityUrl: 'https://login.example.com/token',
      clientSecret: 'x',
    },
  };
}
