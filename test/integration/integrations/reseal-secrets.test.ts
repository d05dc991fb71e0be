/**
 * State written before envelope bindings keeps working (issue 24, finding 3; ADR 0008): an
 * integration and a webhook whose secrets are `enc:v1:` values (sealed under their old purpose,
 * as earlier releases wrote them) still open, and `secrets reseal` rewrites them bound to their
 * record; they keep working, and a second run changes nothing.
 */
import { randomBytes } from 'node:crypto';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalKeyProvider } from '../../../shared/crypto/envelope';
import { call, createKey, useLocalCloudEnv } from '../../support/api';
import { legacyCiphertext } from '../../support/legacy-ciphertext';
import { type Payload, payloads, secretValues, uid } from '../../unit/integrations/fixtures';
import { api, expectNoSecretsIn, expectSettles, runManualSetup, seen } from './helpers';

const sentSecrets: string[] = [];
afterAll(() => expectNoSecretsIn(seen, sentSecrets));

async function modules() {
  useLocalCloudEnv();
  const [{ documentClient }, { tableName }, reseal, webhookSecrets, integrationSecrets] = await Promise.all([
    import('../../../shared/store/clients'),
    import('../../../shared/store/tables'),
    import('../../../shared/service/reseal-secrets'),
    import('../../../shared/webhooks/secrets'),
    import('../../../shared/integrations/secrets'),
  ]);
  const item = async (table: 'integrations' | 'webhooks', id: number) =>
    (
      await documentClient.send(
        new GetCommand({ TableName: tableName(table), Key: { id }, ConsistentRead: true }),
      )
    ).Item as Record<string, unknown> & { config: Record<string, unknown>; secret: string };
  const set = (table: 'integrations' | 'webhooks', id: number, name: string, value: unknown) =>
    documentClient.send(
      new UpdateCommand({
        TableName: tableName(table),
        Key: { id },
        UpdateExpression: 'SET #n = :v',
        ExpressionAttributeNames: { '#n': name },
        ExpressionAttributeValues: { ':v': value },
      }),
    );
  return { item, set, ...reseal, ...webhookSecrets, ...integrationSecrets };
}

describe('secrets sealed before bindings', () => {
  it('still open, and secrets reseal binds them to their records, once', async () => {
    const m = await modules();
    const v1 = (purpose: string, value: string) =>
      legacyCiphertext(LocalKeyProvider.fromFile(String(process.env.LOCAL_MASTER_KEY_FILE)), purpose, value);

    // An integration whose stored credentials are v1 values, as an earlier release wrote them.
    const payload = payloads(uid()).ClusterWarehouse as Payload;
    payload.autoBootstrap = false;
    sentSecrets.push(...secretValues(payload));
    await runManualSetup(payload);
    const created = await api('POST', '/integrations', { body: payload });
    expect(created.status, created.text).toBe(202);
    const id = Number(created.body.id);
    await expectSettles(id, 'enabled');
    const config = (await m.item('integrations', id)).config;
    const old = {
      ...config,
      username: await v1(m.LEGACY_CONFIG_PURPOSE, String(payload.config.username)),
      password: await v1(m.LEGACY_CONFIG_PURPOSE, String(payload.config.password)),
    };
    await m.set('integrations', id, 'config', old);

    // A webhook whose signing secret is a v1 value.
    const owner = await createKey(`reseal-${uid()}`);
    const secret = `whsec_${randomBytes(24).toString('base64')}`;
    const hook = await call('POST', '/webhooks', {
      key: owner.apiKey,
      body: {
        webhooks: [
          {
            name: 'reseal',
            url: 'https://example.com/reseal',
            global: false,
            actionType: 'triggered',
            notificationType: ['queryCreated'],
            secret,
          },
        ],
      },
    });
    expect(hook.status, hook.text).toBe(201);
    const hookId = hook.body.createdWebhooks[0].id as number;
    await m.set('webhooks', hookId, 'secret', await v1(m.WEBHOOK_SECRET_PURPOSE, secret));

    // Old state keeps working: the stored password validates through the placeholder, the
    // delivery pipeline opens the webhook's secret.
    const read = (await api('GET', `/integrations/${id}`)).body.config as Payload['config'];
    const placeholders = () =>
      api('PUT', `/integrations/${id}?dryRun=true`, {
        body: { type: 'ClusterWarehouse', autoBootstrap: false, config: read },
      });
    expect((await placeholders()).status).toBe(200);
    expect(await m.openWebhookSecret(hookId, (await m.item('webhooks', hookId)).secret)).toBe(secret);

    const report = await m.resealSecrets();
    expect(report.integrations.resealed).toBeGreaterThanOrEqual(1);
    expect(report.integrations.values).toBeGreaterThanOrEqual(2);
    expect(report.webhooks.resealed).toBeGreaterThanOrEqual(1);
    const resealed = (await m.item('integrations', id)).config;
    expect(String(resealed.password)).toMatch(/^enc:v2:/);
    expect(String(resealed.username)).toMatch(/^enc:v2:/);
    const hookSecret = (await m.item('webhooks', hookId)).secret;
    expect(hookSecret).toMatch(/^enc:v2:/);

    // Bound now: they open for their own record only, and keep working.
    expect((await placeholders()).status).toBe(200);
    expect(await m.openWebhookSecret(hookId, hookSecret)).toBe(secret);
    await expect(m.openWebhookSecret(hookId + 1, hookSecret)).rejects.toThrow(/does not open/);
    await expect(
      m.secretsOf({ type: 'ClusterWarehouse', config: resealed }).open(m.integrationOwner(id + 1)),
    ).rejects.toThrow(/cannot be decrypted/);

    // A second run finds nothing left to reseal.
    const again = await m.resealSecrets();
    expect(again.integrations.resealed).toBe(0);
    expect(again.webhooks.resealed).toBe(0);
    expect((await m.item('integrations', id)).config).toEqual(resealed);
  });
});
