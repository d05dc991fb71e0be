/**
 * The redaction placeholder keeps a stored secret only while the connection is unchanged: a PUT
 * (or an edit script request) that changes a host, port, URL or connection argument while sending
 * `[REDACTED]` is a 400 naming the secret fields, for every type; sending the secrets again is fine.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { platformOf } from '../../../shared/platforms';
import { connectionPaths } from '../../../shared/platforms/connection';
import { getPath } from '../../../shared/platforms/module';
import { type Payload, payloads, secretValues, uid } from '../../unit/integrations/fixtures';
import { api, expectNoSecretsIn, expectSettles, runManualSetup, seen } from './helpers';

const sentSecrets: string[] = [];
afterAll(() => expectNoSecretsIn(seen, sentSecrets));

/** The sandbox cannot alter an unknown user: these two are set up manually (as in crud.test.ts). */
const MANUAL = new Set(['ClusterWarehouse', 'CloudWarehouse']);

/** Creates an enabled integration of `type` and returns its id, its payload and its read config. */
async function enabled(type: string, change?: (p: Payload) => void) {
  const payload = payloads(uid())[type] as Payload;
  if (MANUAL.has(type)) {
    payload.autoBootstrap = false;
    delete payload.config.role;
  }
  change?.(payload);
  if (MANUAL.has(type)) await runManualSetup(payload);
  sentSecrets.push(...secretValues(payload));
  const created = await api('POST', '/integrations', { body: payload });
  expect(created.status, created.text).toBe(202);
  const id = created.body.id as string;
  await expectSettles(id, 'enabled');
  const read = await api('GET', `/integrations/${id}`);
  return { id, payload, read: read.body.config as Payload };
}

const put = (id: string, type: string, autoBootstrap: boolean, config: Payload, dryRun = false) =>
  api('PUT', `/integrations/${id}${dryRun ? '?dryRun=true' : ''}`, { body: { type, autoBootstrap, config } });

describe('the placeholder over a changed connection', () => {
  it('ClusterWarehouse: sslmode=disable and another port with [REDACTED] credentials → 400 naming them', async () => {
    const { id, payload, read } = await enabled('ClusterWarehouse');
    expect(read.password).toBe('[REDACTED]');
    for (const dryRun of [true, false]) {
      const r = await put(
        id,
        'ClusterWarehouse',
        false,
        { ...read, connectArgs: 'sslmode=disable', port: 1 },
        dryRun,
      );
      expect(r.status, r.text).toBe(400);
      expect(r.body.message).toContain('config.username, config.password');
      expect(r.body.message).toContain('config.port, config.connectArgs');
    }
    // Only one of the two secrets sent: the other is still named.
    const half = await put(id, 'ClusterWarehouse', false, {
      ...read,
      port: 1,
      password: payload.config.password,
    });
    expect(half.status).toBe(400);
    expect(half.body.message).toContain('config.username:');
    expect(half.body.message).not.toContain('config.password');
    // Every secret sent again: the change is accepted (a dry run validates it).
    const resent = await put(
      id,
      'ClusterWarehouse',
      false,
      {
        ...read,
        connectArgs: 'sslmode=require',
        username: payload.config.username,
        password: payload.config.password,
      },
      true,
    );
    expect(resent.status, resent.text).toBe(200);
    // The edit script route applies the same rule.
    const script = await api('POST', `/integrations/${id}/scripts/edit`, {
      body: {
        type: 'ClusterWarehouse',
        autoBootstrap: false,
        config: { ...read, connectArgs: 'sslmode=disable' },
      },
    });
    expect(script.status, script.text).toBe(400);
    expect(script.body.message).toContain('config.username, config.password');
  });

  it('ClusterWarehouse idp: a new identity-provider host needs the idp secrets again', async () => {
    const { id, read } = await enabled('ClusterWarehouse', (p) => {
      const { username: _u, password: _p, ...rest } = p.config;
      p.config = {
        ...rest,
        authenticationType: 'idp',
        idp: {
          username: `idp-${uid()}`,
          password: `idp-pw-${uid()}`,
          appId: 'app',
          idpHost: 'idp.example.com',
          role: 'arn:aws:iam::123456789012:role/r',
        },
      };
    });
    const r = await put(id, 'ClusterWarehouse', false, {
      ...read,
      idp: { ...read.idp, idpHost: 'idp.elsewhere.example.net' },
    });
    expect(r.status, r.text).toBe(400);
    expect(r.body.message).toContain('config.idp.username, config.idp.password');
    expect(r.body.message).toContain('config.idp.idpHost');
  });

  it('AnalyticsWarehouse: trustServerCertificate=true and another port with [REDACTED] → 400 naming the secrets', async () => {
    const { id, read } = await enabled('AnalyticsWarehouse');
    const r = await put(id, 'AnalyticsWarehouse', true, {
      ...read,
      connectArgs: 'trustServerCertificate=true',
      port: 14330,
    });
    expect(r.status, r.text).toBe(400);
    expect(r.body.message).toContain('config.username, config.password');
    expect(r.body.message).toContain('config.port, config.connectArgs');
  });

  it.concurrent.each([
    'AnalyticsWarehouse',
    'Lakehouse',
    'DatasetWarehouse',
    'ClusterWarehouse',
    'CloudWarehouse',
  ])(
    '%s: every connection field changed with the placeholder → 400 naming every stored secret',
    async (type) => {
      const { id, payload, read } = await enabled(type);
      const module = platformOf(type as never);
      const stored = module.secretPaths.filter((p) => getPath(read, p) === '[REDACTED]');
      expect(stored.length).toBeGreaterThan(0);
      const changes: Record<string, unknown> = {
        port: 1,
        host: 'elsewhere.example.net',
        connectArgs: 'sslmode=disable',
        workspaceUrl: 'https://elsewhere.example.net',
        httpPath: '/sql/1.0/warehouses/elsewhere',
      };
      for (const path of connectionPaths(module).filter((p) => p in changes)) {
        const r = await put(id, type, payload.autoBootstrap, { ...read, [path]: changes[path] });
        expect(r.status, `${type} ${path}: ${r.text}`).toBe(400);
        // A non-editable field (the host) is refused as such first; every other one for the secrets.
        if (!module.nonEditable.includes(path))
          expect(r.body.message).toContain(stored.map((p) => `config.${p}`).join(', '));
      }
    },
  );
});
