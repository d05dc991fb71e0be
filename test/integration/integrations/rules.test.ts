/**
 * Every lifecycle and request rule through the local cloud, including each sandbox trigger
 * reaching its documented status.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createKey } from '../../support/api';
import { deleteBodies, type Payload, payloads, secretValues, uid } from '../../unit/integrations/fixtures';
import { api, expectNoSecretsIn, expectSettles, runManualSetup, seen, store, yamlBody } from './helpers';

const sentSecrets: string[] = [];
afterAll(() => expectNoSecretsIn(seen, sentSecrets));

function payload(type: string, change?: (p: Payload) => void): Payload {
  const p = payloads()[type] as Payload;
  change?.(p);
  sentSecrets.push(...secretValues(p));
  return p;
}

async function createEnabled(p: Payload): Promise<string> {
  const r = await api('POST', '/integrations', { body: p });
  expect(r.status, r.text).toBe(202);
  await expectSettles(r.body.id, 'enabled');
  return r.body.id as string;
}

describe('access and ids', () => {
  it('needs APPLICATION_ADMIN', async () => {
    const { apiKey } = await createKey(`plain-${uid()}`, false);
    expect((await api('GET', '/integrations', { key: apiKey })).status).toBe(403);
    expect((await api('GET', '/integrations', { key: null })).status).toBe(401);
  });

  it('404 names the id; a malformed id is a 400', async () => {
    const r = await api('GET', '/integrations/987654321');
    expect(r.status).toBe(404);
    expect(r.body).toEqual({
      statusCode: 404,
      error: 'Not Found',
      message: 'integration 987654321 not found',
    });
    expect((await api('GET', '/integrations/987654321/status')).status).toBe(404);
    expect((await api('PUT', '/integrations/987654321', { body: payload('Lakehouse') })).status).toBe(404);
    expect((await api('DELETE', '/integrations/987654321')).status).toBe(404);
    expect((await api('GET', '/integrations/abc')).status).toBe(400);
  });

  it('rejects unknown fields and invalid bodies in JSON and YAML alike', async () => {
    const bad = payload('AnalyticsWarehouse', (p) => (p.config.extra = 1));
    const json = await api('POST', '/integrations', { body: bad });
    const yaml = await api('POST', '/integrations', yamlBody(bad));
    expect(json.status).toBe(400);
    expect(yaml.status).toBe(400);
    expect(json.body.message).toBe(yaml.body.message);
    expect(json.body.message).toContain('extra');
    const oauth = payload('CloudWarehouse', (p) => {
      p.config.authenticationType = 'oAuth';
      delete p.config.username;
      delete p.config.password;
      p.config.oAuthClientConfig = {
        provider: 'p',
        clientId: 'c',
        authorityUrl: 'https://i.example.com/t',
        useCertificate: false,
        clientSecret: `oauth-secret-${uid()}`,
      };
    });
    expect((await api('POST', '/integrations', { body: oauth })).body.message).toMatch(/autoBootstrap/);
  });
});

describe('uniqueness', () => {
  it('a second integration on the same host is a 409 naming the existing id', async () => {
    const p = payload('AnalyticsWarehouse');
    const id = await createEnabled(p);
    const again = await api('POST', '/integrations', { body: { ...p, autoBootstrap: false } });
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('Conflict');
    expect(again.body.message).toContain(`integration ${id}`);
    // Host identity is case-insensitive.
    const upper = await api('POST', '/integrations', {
      body: { ...p, config: { ...p.config, host: p.config.host.toUpperCase() } },
    });
    expect(upper.status).toBe(409);
  });

  it('ObjectStore name and location are each unique; DatasetWarehouse is one per project', async () => {
    const os = payload('ObjectStore');
    const id = await createEnabled(os);
    const sameName = payload('ObjectStore', (p) => (p.config.name = os.config.name));
    const samePath = payload(
      'ObjectStore',
      (p) => (p.config.cloudLocationPath = os.config.cloudLocationPath),
    );
    for (const p of [sameName, samePath]) {
      const r = await api('POST', '/integrations', { body: p });
      expect(r.status).toBe(409);
      expect(r.body.message).toContain(`integration ${id}`);
    }
    const dw = payload('DatasetWarehouse');
    const dwId = await createEnabled(dw);
    const sameProject = payload('DatasetWarehouse', (p) => {
      p.config.credential = dw.config.credential;
      p.config.datasetSuffix = '_other';
    });
    const r = await api('POST', '/integrations', { body: sameProject });
    expect(r.status).toBe(409);
    expect(r.body.message).toContain(`integration ${dwId}`);
  });
});

describe('validation failures (sandbox triggers)', () => {
  it('an unreachable host fails the Basic Connection Test: 422 with validationResults, nothing created', async () => {
    const p = payload('ClusterWarehouse', (c) => (c.config.host = `db-${uid()}.unreachable.example`));
    const r = await api('POST', '/integrations', { body: p });
    expect(r.status).toBe(422);
    expect(r.body.error).toBe('Unprocessable Entity');
    expect(r.body.validationResults.status).toBe('failed');
    const failed = r.body.validationResults.validationTests.filter((t: Payload) => t.status === 'failed');
    expect(failed.map((t: Payload) => t.name).join()).toMatch(/Basic Connection Test/);
    // Nothing was stored for the host (other files create integrations meanwhile, so the list's
    // length says nothing).
    expect(
      (await api('GET', '/integrations')).body.filter((i: Payload) => i.config?.host === p.config.host),
    ).toEqual([]);
    // The host was never claimed: the same host with a reachable name is fine afterwards.
    const dry = await api('POST', '/integrations?dryRun=true', { body: p });
    expect(dry.status).toBe(422);
    expect(dry.body.validationResults.status).toBe('failed');
  });

  it('an unreachable Lakehouse workspace fails too', async () => {
    const p = payload(
      'Lakehouse',
      (c) => (c.config.workspaceUrl = `https://ws-${uid()}.unreachable.example`),
    );
    const r = await api('POST', '/integrations', { body: p });
    expect(r.status).toBe(422);
  });

  it('invalid-credentials fails authentication (422) for every type with credentials', async () => {
    const cases: Payload[] = [
      payload('AnalyticsWarehouse', (p) => (p.config.password = 'invalid-credentials')),
      payload('Lakehouse', (p) => (p.config.token = 'invalid-credentials')),
      payload('ClusterWarehouse', (p) => (p.config.password = 'invalid-credentials')),
      payload('CloudWarehouse', (p) => (p.config.password = 'invalid-credentials')),
      payload('ObjectStore', (p) => (p.config.cloudSecretAccessKey = 'invalid-credentials')),
    ];
    const results = await Promise.all(cases.map((p) => api('POST', '/integrations', { body: p })));
    for (const r of results) {
      expect(r.status, r.text).toBe(422);
      expect(r.body.validationResults.validationTests.some((t: Payload) => t.status === 'failed')).toBe(true);
    }
  });
});

describe('failed creation', () => {
  it('fail-bootstrap → createError; POST for the host → 400 pointing at PUT; that PUT recovers', async () => {
    const p = payload('AnalyticsWarehouse', (c) => (c.config.password = 'fail-bootstrap'));
    const created = await api('POST', '/integrations', { body: p });
    expect(created.status, created.text).toBe(202);
    const id = created.body.id as string;
    await expectSettles(id, 'createError');
    const status = await api('GET', `/integrations/${id}/status`);
    expect(status.body.statusMessage).toBeTruthy();

    const again = await api('POST', '/integrations', { body: p });
    expect(again.status).toBe(400);
    expect(again.body.error).toBe('Bad Request');
    expect(again.body.message).toContain(`integration ${id}`);
    expect(again.body.message).toContain(p.config.host);
    expect(again.body.message).toContain(`PUT /integrations/${id}`);

    const fixed = { ...p, config: { ...p.config, password: `good-${uid()}`, schema: 'renamed_schema' } };
    sentSecrets.push(fixed.config.password);
    const put = await api('PUT', `/integrations/${id}`, { body: fixed });
    expect(put.status, put.text).toBe(202);
    expect(put.body.status).toBe('creating');
    await expectSettles(id, 'enabled');
    expect((await api('GET', `/integrations/${id}`)).body.config.schema).toBe('renamed_schema');
  });
});

describe('edits', () => {
  it('a failed edit → editError and the previous config stays in effect', async () => {
    const p = payload('AnalyticsWarehouse');
    const id = await createEnabled(p);
    const impersonation = (role: string) => ({ enabled: true, role });
    const edit = {
      ...p,
      config: { ...p.config, impersonation: impersonation('IMP_A'), password: 'fail-bootstrap' },
    };
    const r = await api('PUT', `/integrations/${id}`, { body: edit });
    expect(r.status, r.text).toBe(202);
    expect(r.body.status).toBe('editing');
    await expectSettles(id, 'editError');
    const read = await api('GET', `/integrations/${id}`);
    expect(read.body.config.impersonation.enabled).toBe(false);
    expect(read.body.statusMessage).toBeTruthy();
    // editError still accepts a PUT (a new edit; the half-made role is avoided by a new name).
    const retry = await api('PUT', `/integrations/${id}`, {
      body: { ...p, config: { ...read.body.config, impersonation: impersonation('IMP_B') } },
    });
    expect(retry.status, retry.text).toBe(202);
    await expectSettles(id, 'enabled');
    expect((await api('GET', `/integrations/${id}`)).body.config.impersonation).toEqual(
      impersonation('IMP_B'),
    );
  });

  it('changing non-editable attributes is a 400 listing them', async () => {
    const p = payload('AnalyticsWarehouse');
    const id = await createEnabled(p);
    const r = await api('PUT', `/integrations/${id}`, {
      body: { ...p, config: { ...p.config, host: `x-${uid()}.example.com`, database: 'other' } },
    });
    expect(r.status).toBe(400);
    expect(r.body.message).toContain('config.host');
    expect(r.body.message).toContain('config.database');
    const typeChange = await api('PUT', `/integrations/${id}`, { body: payload('CloudWarehouse') });
    expect(typeChange.status).toBe(400);
    expect(typeChange.body.message).toContain('type');
    const lh = payload('Lakehouse');
    const lhId = await createEnabled(lh);
    const catalog = await api('PUT', `/integrations/${lhId}`, {
      body: { ...lh, config: { ...lh.config, catalog: 'other' } },
    });
    expect(catalog.status).toBe(400);
    expect(catalog.body.message).toContain('config.catalog');
  });

  it('a placeholder for a secret that is not stored is a 400', async () => {
    const p = payload('ClusterWarehouse', (c) => (c.autoBootstrap = false));
    await runManualSetup(p);
    const id = await createEnabled(p);
    const switched = {
      ...p,
      config: {
        host: p.config.host,
        database: p.config.database,
        initialDatabase: p.config.initialDatabase,
        authenticationType: 'accessKey',
        databaseUser: 'u',
        accessKeyId: 'AKIAEXAMPLE',
        secretKey: '[REDACTED]',
      },
    };
    const r = await api('PUT', `/integrations/${id}`, { body: switched });
    expect(r.status).toBe(400);
    expect(r.body.message).toContain('config.secretKey');
    const created = await api('POST', '/integrations', {
      body: payload('AnalyticsWarehouse', (c) => (c.config.password = '[REDACTED]')),
    });
    expect(created.status).toBe(400);
  });

  it('PUT or DELETE while editing/deleting is a 409 naming the state', async () => {
    const p = payload('AnalyticsWarehouse');
    const id = await createEnabled(p);
    const db = await store();
    for (const state of ['editing', 'deleting', 'creating']) {
      await db.setStatus(Number(id), state);
      const put = await api('PUT', `/integrations/${id}`, { body: p });
      expect(put.status).toBe(409);
      expect(put.body.message).toContain(`integration ${id} is currently ${state}`);
      const del = await api('DELETE', `/integrations/${id}`, { body: deleteBodies().AnalyticsWarehouse });
      expect(del.status).toBe(409);
      expect(del.body.message).toContain(state);
    }
    await db.setStatus(Number(id), 'enabled');
  });
});

describe('deletes', () => {
  it('delete payload errors per the spec', async () => {
    const auto = await createEnabled(payload('AnalyticsWarehouse'));
    const manualPayload = payload('ClusterWarehouse', (p) => (p.autoBootstrap = false));
    await runManualSetup(manualPayload);
    const manual = await createEnabled(manualPayload);
    const lake = await createEnabled(payload('Lakehouse'));
    const creds = deleteBodies().AnalyticsWarehouse as Payload;
    sentSecrets.push(...secretValues(creds));
    const noCreds = await api('DELETE', `/integrations/${auto}`);
    expect(noCreds.status).toBe(400);
    expect(noCreds.body.message).toMatch(/autoBootstrap true and no privileged credentials were sent/);
    const wrongShape = await api('DELETE', `/integrations/${auto}`, {
      body: { authenticationType: 'userPassword' },
    });
    expect(wrongShape.status).toBe(400);
    const manualCreds = await api('DELETE', `/integrations/${manual}`, {
      body: deleteBodies().ClusterWarehouse,
    });
    expect(manualCreds.status).toBe(400);
    expect(manualCreds.body.message).toMatch(/bootstrapped manually.*must be removed/);
    const lakeCreds = await api('DELETE', `/integrations/${lake}`, { body: { token: 'x' } });
    expect(lakeCreds.status).toBe(400);
    expect(lakeCreds.body.message).toMatch(/Lakehouse integration.*must be removed/);
    for (const id of [auto, manual, lake])
      expect((await api('GET', `/integrations/${id}/status`)).body.status).toBe('enabled');
    const yaml = await api('DELETE', `/integrations/${auto}`, yamlBody(creds));
    expect(yaml.status, yaml.text).toBe(202);
    await expectSettles(auto, 'deleted');
  });

  it('fail-teardown → deleteError; a new DELETE with good credentials finishes; PUT on deleted → 409', async () => {
    const p = payload('AnalyticsWarehouse');
    const id = await createEnabled(p);
    const bad = { authenticationType: 'userPassword', username: `admin-${uid()}`, password: 'fail-teardown' };
    const r = await api('DELETE', `/integrations/${id}`, { body: bad });
    expect(r.status, r.text).toBe(202);
    await expectSettles(id, 'deleteError');
    expect(await (await store()).rawItemText(Number(id))).not.toContain('fail-teardown');
    const good = deleteBodies().AnalyticsWarehouse as Payload;
    sentSecrets.push(...secretValues(good));
    expect((await api('DELETE', `/integrations/${id}`, { body: good })).status).toBe(202);
    await expectSettles(id, 'deleted');
    const put = await api('PUT', `/integrations/${id}`, { body: p });
    expect(put.status).toBe(409);
    expect(put.body.message).toMatch(/re-create it with POST/);
    expect((await api('DELETE', `/integrations/${id}`, { body: good })).status).toBe(409);
    // Deleted integrations release their host.
    const again = await api('POST', '/integrations', { body: p });
    expect(again.status, again.text).toBe(202);
    await expectSettles(again.body.id, 'enabled');
  });

  it('forceDisable → disabled at once, without credentials, releasing the host', async () => {
    // A manual integration: its setup stays in place, so re-creating it validates cleanly.
    const p = payload('CloudWarehouse', (c) => {
      c.autoBootstrap = false;
      delete c.config.role;
    });
    await runManualSetup(p);
    const id = await createEnabled(p);
    const r = await api('DELETE', `/integrations/${id}?forceDisable=true`);
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ id, status: 'disabled' });
    expect((await api('GET', `/integrations/${id}/status`)).body.status).toBe('disabled');
    expect((await api('PUT', `/integrations/${id}`, { body: p })).status).toBe(409);
    const again = await api('POST', '/integrations?dryRun=true', { body: p });
    expect(again.status).toBe(200);
  });
});

describe('dry runs change nothing', () => {
  it('POST, PUT and DELETE with dryRun=true return validation results only', async () => {
    const p = payload('Lakehouse');
    const countBefore = (await api('GET', '/integrations')).body.length;
    const dryCreate = await api('POST', '/integrations?dryRun=true', yamlBody(p));
    expect(dryCreate.status).toBe(200);
    expect(Object.keys(dryCreate.body)).toEqual(['validationResults']);
    expect(dryCreate.body.validationResults.validationTests.length).toBeGreaterThan(0);
    expect(
      (await api('GET', '/integrations')).body.filter(
        (i: Payload) => i.config?.workspaceUrl === p.config.workspaceUrl,
      ),
    ).toEqual([]);
    expect((await api('GET', '/integrations')).body.length).toBeGreaterThanOrEqual(countBefore);

    const id = await createEnabled(p); // the dry run claimed nothing
    const before = await api('GET', `/integrations/${id}`);
    const dryPut = await api('PUT', `/integrations/${id}?dryRun=true`, {
      body: { ...p, config: { ...p.config, httpPath: '/changed' } },
    });
    expect(dryPut.status).toBe(200);
    expect(dryPut.body.validationResults).toBeDefined();
    const dryDelete = await api('DELETE', `/integrations/${id}?dryRun=true`);
    expect(dryDelete.status).toBe(200);
    const after = await api('GET', `/integrations/${id}`);
    expect(after.body).toEqual(before.body);
    expect((await api('POST', '/integrations?dryRun=maybe', { body: p })).status).toBe(400);
  });
});
