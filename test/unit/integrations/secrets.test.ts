import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type * as Secrets from '../../../shared/integrations/secrets';
import { tempDir } from '../../support/temp';
import { payloads } from './fixtures';

let secrets: typeof Secrets;

beforeAll(async () => {
  const dir = tempDir('causeway-secrets-');
  const file = join(dir, 'master.key');
  writeFileSync(file, randomBytes(32).toString('base64'));
  process.env.LOCAL_MASTER_KEY_FILE = file;
  secrets = await import('../../../shared/integrations/secrets');
});

describe('integration secrets', () => {
  const config = () => structuredClone(payloads('s').ClusterWarehouse?.config) as Record<string, unknown>;

  it('encrypts exactly the secret fields and decrypts them back', async () => {
    const plain = config();
    const sealed = (await secrets.encryptSecrets('ClusterWarehouse', plain)) as Record<string, unknown>;
    expect(String(sealed.password)).toMatch(/^enc:v1:/);
    expect(String(sealed.username)).toMatch(/^enc:v1:/);
    expect(sealed.host).toBe(plain.host);
    expect(JSON.stringify(sealed)).not.toContain(String(plain.password));
    expect(await secrets.decryptSecrets('ClusterWarehouse', sealed)).toEqual(plain);
    // Encrypting again leaves ciphertext alone.
    expect(await secrets.encryptSecrets('ClusterWarehouse', sealed)).toEqual(sealed);
  });

  it('redacts secrets, nested ones included', async () => {
    const lake = {
      workspaceUrl: 'https://x.example.com',
      authenticationType: 'oAuthM2M',
      oAuthClientConfig: { clientId: 'c', authorityUrl: 'https://x.example.com/t', clientSecret: 'shh' },
    };
    const redacted = (await secrets.redactSecrets('Lakehouse', lake)) as typeof lake;
    expect(redacted.oAuthClientConfig.clientSecret).toBe('[REDACTED]');
    expect(redacted.oAuthClientConfig.clientId).toBe('c');
  });

  it('restores placeholders from the stored config and leaves new values alone', async () => {
    const stored = (await secrets.encryptSecrets('ClusterWarehouse', config())) as Record<string, unknown>;
    const incoming = { ...config(), username: '[REDACTED]', password: 'new-password' };
    const restored = (await secrets.restorePlaceholders('ClusterWarehouse', incoming, stored)) as Record<
      string,
      unknown
    >;
    expect(restored.username).toBe(config().username);
    expect(restored.password).toBe('new-password');
    const nothingStored = await secrets.restorePlaceholders('ClusterWarehouse', incoming, undefined);
    expect((nothingStored as Record<string, unknown>).username).toBe('[REDACTED]');
  });

  it('keeps a stored secret for the placeholder only while the endpoint it is sent to is unchanged', async () => {
    const R = '[REDACTED]';
    const restore = async (
      type: Parameters<typeof secrets.restorePlaceholders>[0],
      stored: object,
      incoming: object,
    ) =>
      JSON.parse(
        JSON.stringify(
          await secrets.restorePlaceholders(
            type,
            incoming as Record<string, unknown>,
            (await secrets.encryptSecrets(type, stored as Record<string, unknown>)) as Record<
              string,
              unknown
            >,
          ),
        ),
      );
    const idp = { username: 'u', password: 'idp-pw', appId: 'a', idpHost: 'idp.example.com', role: 'r' };
    const cluster = { host: 'c.example.com', database: 'd', authenticationType: 'idp', idp };
    const sameIdp = await restore('ClusterWarehouse', cluster, {
      ...cluster,
      idp: { ...idp, username: R, password: R },
    });
    expect(sameIdp.idp.password).toBe('idp-pw');
    const movedIdp = await restore('ClusterWarehouse', cluster, {
      ...cluster,
      idp: { ...idp, idpHost: 'attacker.example.net', username: R, password: R },
    });
    expect(movedIdp.idp.password).toBe(R);
    expect(movedIdp.idp.username).toBe(R);

    const oauth = {
      clientId: 'c',
      authorityUrl: 'https://login.example.com/t',
      clientSecret: 'client-secret',
    };
    const lake = {
      workspaceUrl: 'https://w.example.com',
      authenticationType: 'oAuthM2M',
      oAuthClientConfig: oauth,
    };
    const moved = { ...oauth, authorityUrl: 'https://attacker.example.net/t', clientSecret: R };
    expect(
      (await restore('Lakehouse', lake, { ...lake, oAuthClientConfig: { ...oauth, clientSecret: R } }))
        .oAuthClientConfig.clientSecret,
    ).toBe('client-secret');
    expect(
      (await restore('Lakehouse', lake, { ...lake, oAuthClientConfig: moved })).oAuthClientConfig
        .clientSecret,
    ).toBe(R);
    const cloud = {
      host: 'acct.example.com',
      authenticationType: 'oAuth',
      oAuthClientConfig: { ...oauth, provider: 'p', useCertificate: false },
    };
    expect(
      (
        await restore('CloudWarehouse', cloud, {
          ...cloud,
          oAuthClientConfig: { ...cloud.oAuthClientConfig, ...moved },
        })
      ).oAuthClientConfig.clientSecret,
    ).toBe(R);
  });

  it('seals delete credentials as one opaque string', async () => {
    const sealed = await secrets.sealCredentials({ username: 'a', password: 'fail-teardown' });
    expect(sealed).not.toContain('fail-teardown');
    expect(await secrets.openCredentials(sealed)).toEqual({ username: 'a', password: 'fail-teardown' });
  });
});
