/**
 * The script endpoints through the local cloud over HTTP: JSON and text/plain responses, JSON
 * and YAML bodies, the body rules, and the {id} routes reading the stored integration.
 */
import { describe, expect, it } from 'vitest';
import { call, createKey, eventually } from '../../support/api';
import { runManualSetup } from '../integrations/helpers';

const cluster = (extra: Record<string, unknown> = {}) => ({
  type: 'ClusterWarehouse',
  autoBootstrap: false,
  config: {
    host: 'scripts.example.com',
    database: 'service_db',
    authenticationType: 'userPassword',
    username: 'svc',
    password: 'pw',
    ...extra,
  },
});

describe('POST /integrations/scripts/*', () => {
  it('create answers JSON {script, statements} by default', async () => {
    const res = await call('POST', '/integrations/scripts/create', { body: cluster() });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(res.body.statements).toContain('CREATE SCHEMA "service_metadata" AUTHORIZATION "svc"');
    expect(res.body.script).toContain('-- Connect to database "service_db" first.');
  });

  it('answers the script as text/plain when Accept prefers it', async () => {
    const json = await call('POST', '/integrations/scripts/initial-create', { body: cluster() });
    const text = await call('POST', '/integrations/scripts/initial-create', {
      body: cluster(),
      headers: { accept: 'text/plain, application/json;q=0.5' },
    });
    expect(text.status).toBe(200);
    expect(text.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(text.text).toBe(json.body.script);
    expect(text.text).toContain(`CREATE USER "svc" PASSWORD 'pw';`);
  });

  it('accepts YAML bodies', async () => {
    const yaml = [
      'type: AnalyticsWarehouse',
      'autoBootstrap: false',
      'config:',
      '  host: sql.example.net',
      '  database: sales',
      '  schema: views',
      '  username: svc',
      '  password: pw',
    ].join('\n');
    const res = await call('POST', '/integrations/scripts/post-cleanup', {
      raw: yaml,
      contentType: 'application/yaml',
    });
    expect(res.status).toBe(200);
    expect(res.body.statements).toEqual(['DROP LOGIN [svc]']);
  });

  it('accepts Lakehouse for create but not for cleanup; refuses types without scripts', async () => {
    const lakehouse = {
      type: 'Lakehouse',
      autoBootstrap: false,
      config: {
        workspaceUrl: 'https://dbc.example.com',
        httpPath: '/sql',
        authenticationType: 'token',
        token: 't',
      },
    };
    expect((await call('POST', '/integrations/scripts/create', { body: lakehouse })).status).toBe(200);
    const cleanup = await call('POST', '/integrations/scripts/cleanup', { body: lakehouse });
    expect(cleanup.status).toBe(400);
    expect(cleanup.body.message).toMatch(
      /type Lakehouse is not accepted here; accepted types: AnalyticsWarehouse, ClusterWarehouse, CloudWarehouse/,
    );
    const objectStore = await call('POST', '/integrations/scripts/create', {
      body: { type: 'ObjectStore', autoBootstrap: false, config: {} },
    });
    expect(objectStore.status).toBe(400);
  });

  it('refuses autoBootstrap true, invalid configs and values no script can carry', async () => {
    const auto = await call('POST', '/integrations/scripts/create', {
      body: { ...cluster(), autoBootstrap: true },
    });
    expect(auto.body).toMatchObject({
      statusCode: 400,
      error: 'Bad Request',
      message: expect.stringContaining('autoBootstrap must be false'),
    });
    const invalid = await call('POST', '/integrations/scripts/create', { body: cluster({ port: 70000 }) });
    expect(invalid.status).toBe(400);
    expect(invalid.body.message).toContain('config.port');
    const nul = await call('POST', '/integrations/scripts/initial-create', {
      body: cluster({ password: 'a\u0000b' }),
    });
    expect(nul.body).toMatchObject({ statusCode: 400, message: expect.stringContaining('NUL') });
    expect(nul.text).not.toContain('a\u0000b');
  });

  it("serves removal scripts for automatic setups, which never drop the operator's account", async () => {
    const automatic = {
      ...cluster(),
      autoBootstrap: true,
      config: { ...cluster().config, initialDatabase: 'dev' },
    };
    const cleanup = await call('POST', '/integrations/scripts/cleanup', { body: automatic });
    expect(cleanup.status, cleanup.text).toBe(200);
    expect(cleanup.body.statements).toContain('DROP DATABASE "service_db"');
    expect(cleanup.body.statements.filter((s: string) => /^DROP USER/.test(s))).toEqual([]);
    const setup = await call('POST', '/integrations/scripts/create', { body: automatic });
    expect(setup.status).toBe(400);
    expect(setup.body.message).toMatch(
      /autoBootstrap must be false: with automatic setup the service runs the create statements itself/,
    );
  });

  it('quotes hostile values instead of running them', async () => {
    const res = await call('POST', '/integrations/scripts/initial-create', {
      body: cluster({ username: 'x"; DROP DATABASE prod; --', password: "p'; DROP TABLE t; --" }),
    });
    expect(res.status).toBe(200);
    expect(res.body.statements[0]).toBe(
      `CREATE USER "x""; DROP DATABASE prod; --" PASSWORD 'p''; DROP TABLE t; --'`,
    );
  });

  it('requires an APPLICATION_ADMIN key', async () => {
    expect((await call('POST', '/integrations/scripts/create', { body: cluster(), key: null })).status).toBe(
      401,
    );
    const { apiKey } = await createKey('script-reader', false);
    expect(
      (await call('POST', '/integrations/scripts/create', { body: cluster(), key: apiKey })).status,
    ).toBe(403);
  });
});

describe('POST /integrations/{id}/scripts/*', () => {
  it('404 for an unknown integration', async () => {
    const res = await call('POST', '/integrations/999999/scripts/delete');
    expect(res.body).toMatchObject({ statusCode: 404, message: expect.stringContaining('999999') });
  });

  it('edit and delete scripts follow the stored integration', async () => {
    const host = `scripts-${Date.now()}.example.com`;
    const created = await call('POST', '/integrations', {
      body: {
        type: 'ClusterWarehouse',
        autoBootstrap: true,
        config: {
          host,
          database: 'managed',
          initialDatabase: 'dev',
          authenticationType: 'userPassword',
          username: 'admin',
          password: 'pw',
        },
      },
    });
    expect(created.status).toBeLessThan(300);
    const id = created.body.id as string;
    await eventually(
      () => call('GET', `/integrations/${id}/status`),
      (r) => r.body.status === 'enabled',
    );
    const stored = await call('GET', `/integrations/${id}`);
    // Send the read config back (placeholders included) with impersonation turned on.
    const edit = await call('POST', `/integrations/${id}/scripts/edit`, {
      body: {
        type: 'ClusterWarehouse',
        autoBootstrap: false,
        config: { ...stored.body.config, impersonation: { enabled: true } },
      },
    });
    expect(edit.status).toBe(200);
    expect(edit.body.statements).toEqual([
      'CREATE GROUP "service_impersonation"',
      'GRANT USAGE ON SCHEMA "service_policies" TO GROUP "service_impersonation"',
    ]);
    const nonEditable = await call('POST', `/integrations/${id}/scripts/edit`, {
      body: {
        type: 'ClusterWarehouse',
        autoBootstrap: false,
        config: { ...stored.body.config, database: 'other' },
      },
    });
    expect(nonEditable.body).toMatchObject({ statusCode: 400, message: expect.stringContaining('database') });
    const removal = await call('POST', `/integrations/${id}/scripts/delete`, {
      headers: { accept: 'text/plain' },
    });
    expect(removal.status).toBe(200);
    expect(removal.text).toContain('DROP DATABASE "managed";');
    expect(removal.text).not.toContain('pw');
  });

  it('never writes a stored secret into an edit script: a script that sets it needs the value sent', async () => {
    const stamp = Date.now();
    const password = `stored-pw-${stamp}`;
    const payload = {
      type: 'ClusterWarehouse',
      autoBootstrap: false,
      config: {
        host: `manual-${stamp}.example.com`,
        database: 'managed',
        authenticationType: 'userPassword',
        username: 'svc_old',
        password,
      },
    };
    await runManualSetup(payload);
    const created = await call('POST', '/integrations', { body: payload });
    expect(created.status, created.text).toBe(202);
    const id = created.body.id as string;
    await eventually(
      () => call('GET', `/integrations/${id}/status`),
      (r) => r.body.status === 'enabled',
    );
    const stored = await call('GET', `/integrations/${id}`);
    expect(stored.body.config.password).toBe('[REDACTED]');
    // Renaming the user re-sets its password: with the placeholder, that would be the stored one.
    const renamed = await call('POST', `/integrations/${id}/scripts/edit`, {
      body: {
        type: 'ClusterWarehouse',
        autoBootstrap: false,
        config: { ...stored.body.config, username: 'svc_new' },
      },
    });
    expect(renamed.text).not.toContain(password);
    expect(renamed.body).toMatchObject({
      statusCode: 400,
      message: expect.stringContaining('config.password'),
    });
    // Sending the password itself is fine, and an edit that does not set it keeps working.
    const explicit = await call('POST', `/integrations/${id}/scripts/edit`, {
      body: {
        type: 'ClusterWarehouse',
        autoBootstrap: false,
        config: { ...stored.body.config, username: 'svc_new', password: 'new-pw' },
      },
    });
    expect(explicit.status, explicit.text).toBe(200);
    expect(explicit.body.statements).toContain(`ALTER USER "svc_new" PASSWORD 'new-pw'`);
    const unchanged = await call('POST', `/integrations/${id}/scripts/edit`, {
      body: {
        type: 'ClusterWarehouse',
        autoBootstrap: false,
        config: { ...stored.body.config, impersonation: { enabled: true } },
      },
    });
    expect(unchanged.status, unchanged.text).toBe(200);
    expect(unchanged.text).not.toContain(password);
  });
});
