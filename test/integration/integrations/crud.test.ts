/**
 * Create, read, list, update and delete for every type, in JSON and in YAML, through the local
 * cloud; every response body is checked for the secrets that were sent.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { payloadSchemaFor, platformOf, uniquenessClaims } from '../../../shared/platforms';
import { examplesOf, registeredTypes } from '../../support/platform-examples';
import { deleteBodies, type Payload, payloads, secretValues, uid } from '../../unit/integrations/fixtures';
import { api, expectNoSecretsIn, expectSettles, runManualSetup, seen, store, yamlBody } from './helpers';

const sentSecrets: string[] = [];

/**
 * The sandbox takes an unknown user as a privileged account but cannot alter it, so automatic
 * setup of these two types cannot complete there; they are exercised as manual integrations
 * (the operator's setup script is run on the sandbox first). Automatic setup is covered with
 * AnalyticsWarehouse and Lakehouse.
 */
const MANUAL = new Set(['ClusterWarehouse', 'CloudWarehouse']);

/** The port a body without one gets: its schema's default. */
const defaultPort = (body: Payload) =>
  (payloadSchemaFor(body).parse(body) as { config?: { port?: number } }).config?.port;

const send = (format: 'json' | 'yaml', body: unknown) => (format === 'json' ? { body } : yamlBody(body));

afterAll(() => {
  expectNoSecretsIn(seen, sentSecrets);
});

describe.each(['json', 'yaml'] as const)('integration CRUD (%s bodies)', (format) => {
  /** Every registered type but those of one integration per service (claims no payload changes). */
  const types = registeredTypes().filter((type) => {
    const claimsOf = (id: string) => {
      const body = payloads(id)[type];
      return JSON.stringify(uniquenessClaims(payloadSchemaFor(body).parse(body)));
    };
    return claimsOf('a') !== claimsOf('b');
  });

  it.concurrent.each(types)('%s: create, read, list, update, delete', async (type) => {
    const id0 = uid();
    const payload = payloads(id0)[type] as Payload;
    if (MANUAL.has(type)) {
      payload.autoBootstrap = false;
      delete payload.config.role;
      await runManualSetup(payload);
    }
    sentSecrets.push(...secretValues(payload), `dw-key-${id0}`);

    const created = await api('POST', '/integrations', send(format, payload));
    expect(created.status, created.text).toBe(202);
    expect(typeof created.body.id).toBe('string');
    expect(created.body.status).toBe('creating');
    expect(['passed', 'warning']).toContain(created.body.validationResults.status);
    expect(Array.isArray(created.body.validationResults.validationTests)).toBe(true);
    const id = created.body.id as string;
    await expectSettles(id, 'enabled');

    const read = await api('GET', `/integrations/${id}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id, type, status: 'enabled', autoBootstrap: payload.autoBootstrap });
    // The schema's default port (each type's defaults are pinned in test/unit/integrations/schemas.test.ts).
    expect(read.body.config.port).toBe(defaultPort(payload));
    for (const secret of secretValues(payload)) expect(read.text).not.toContain(secret);
    if (type === 'AnalyticsWarehouse') {
      expect(read.body.config.password).toBe('[REDACTED]');
      expect(read.body.config.impersonation).toEqual({ enabled: false, role: 'SERVICE_IMPERSONATION' });
    }
    if (type === 'CloudWarehouse') {
      for (const flag of ['audit', 'workspaces', 'impersonation', 'lineage'])
        expect(read.body.config[flag].enabled).toBe(false);
    }

    // Secrets are encrypted at rest: the stored item holds none of them in plaintext.
    const raw = await (await store()).rawItemText(Number(id));
    for (const secret of secretValues(payload)) expect(raw).not.toContain(secret);

    const list = await api('GET', '/integrations');
    expect(list.status).toBe(200);
    expect(list.body.find((i: Payload) => i.id === id)?.type).toBe(type);

    const status = await api('GET', `/integrations/${id}/status`);
    expect(status.body).toEqual({ id: Number(id), status: 'enabled' });

    // One editable change that keeps the connection, from the type's examples (connection changes
    // need every secret again: secret-reuse.test.ts).
    const edit = examplesOf(type).settingEdit;
    expect(edit !== undefined, 'an updatable type has a settingEdit example').toBe(
      platformOf(type).updatable,
    );
    if (edit) {
      // Send the read config back (placeholders included) with one editable change.
      const update = {
        type,
        autoBootstrap: payload.autoBootstrap,
        config: { ...read.body.config, [edit[0]]: edit[1] },
      };
      const updated = await api('PUT', `/integrations/${id}`, send(format, update));
      expect(updated.status, updated.text).toBe(202);
      expect(updated.body).toMatchObject({ id, status: 'editing' });
      await expectSettles(id, 'enabled');
      const after = await api('GET', `/integrations/${id}`);
      expect(after.body.config[edit[0]]).toEqual(edit[1]);
      expect(await (await store()).rawItemText(Number(id))).toContain('enc:v2:');
    } else {
      const refused = await api('PUT', `/integrations/${id}`, send(format, payload));
      expect(refused.status).toBe(400);
      expect(refused.body.message).toMatch(/cannot be updated/);
    }

    const credentials = payload.autoBootstrap ? deleteBodies(id0)[type] : undefined;
    if (credentials) sentSecrets.push(...secretValues(credentials));
    const deleted = await api('DELETE', `/integrations/${id}`, credentials ? send(format, credentials) : {});
    expect(deleted.status, deleted.text).toBe(202);
    expect(deleted.body).toMatchObject({ id, status: 'deleting' });
    await expectSettles(id, 'deleted');
    const gone = await api('GET', `/integrations/${id}`);
    expect(gone.body.status).toBe('deleted');
  });
});

describe('FederatedSql', () => {
  it('issues a key and snippet once, regenerates, refuses updates and a second cluster', async () => {
    const created = await api('POST', '/integrations', yamlBody({ type: 'FederatedSql' }));
    expect(created.status, created.text).toBe(202);
    const id = created.body.id as string;
    const key = created.body.apiKey as string;
    expect(key).toMatch(/^cwfs_/);
    expect(created.body.configurationSnippet).toContain(`causeway.api-key=${key}`);
    expect(created.body.configurationSnippet).toContain(`causeway.integration-id=${id}`);
    await expectSettles(id, 'enabled');

    const second = await api('POST', '/integrations', { body: { type: 'FederatedSql' } });
    expect(second.status).toBe(409);
    expect(second.body.message).toContain(`integration ${id}`);

    const read = await api('GET', `/integrations/${id}`);
    expect(read.body).toMatchObject({ id, type: 'FederatedSql', status: 'enabled' });
    expect(read.text).not.toContain(key);
    expect((await api('GET', '/integrations')).text).not.toContain(key);

    const regenerated = await api('POST', `/integrations/${id}/regenerate`);
    expect(regenerated.status).toBe(200);
    expect(regenerated.body.apiKey).toMatch(/^cwfs_/);
    expect(regenerated.body.apiKey).not.toBe(key);
    expect(regenerated.body.configurationSnippet).toContain(regenerated.body.apiKey);
    expect(await (await store()).rawItemText(Number(id))).not.toContain(regenerated.body.apiKey);

    const put = await api('PUT', `/integrations/${id}`, { body: { type: 'FederatedSql' } });
    expect(put.status).toBe(400);

    const refused = await api('DELETE', `/integrations/${id}`, { body: { username: 'a', password: 'b' } });
    expect(refused.status).toBe(400);
    const deleted = await api('DELETE', `/integrations/${id}`);
    expect(deleted.status).toBe(202);
    await expectSettles(id, 'deleted');
    expect((await api('POST', `/integrations/${id}/regenerate`)).status).toBe(409);
  });

  it('regenerate is only for FederatedSql', async () => {
    const payload = payloads().AnalyticsWarehouse as Payload;
    const created = await api('POST', '/integrations', { body: payload });
    expect(created.status, created.text).toBe(202);
    const r = await api('POST', `/integrations/${created.body.id}/regenerate`);
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/only FederatedSql/);
    await expectSettles(created.body.id, 'enabled');
  });
});
