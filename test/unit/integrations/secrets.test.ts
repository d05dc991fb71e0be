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

  it('restores placeholders from the stored config, leaves new values alone and says which it restored', async () => {
    const stored = (await secrets.encryptSecrets('ClusterWarehouse', config())) as Record<string, unknown>;
    const incoming = { ...config(), username: '[REDACTED]', password: 'new-password' };
    const { config: restored, restored: paths } = await secrets.restorePlaceholders(
      'ClusterWarehouse',
      incoming,
      stored,
    );
    expect(restored?.username).toBe(config().username);
    expect(restored?.password).toBe('new-password');
    expect(paths).toEqual(['username']);
    const nothingStored = await secrets.restorePlaceholders('ClusterWarehouse', incoming, undefined);
    expect(nothingStored.config?.username).toBe('[REDACTED]');
    expect(nothingStored.restored).toEqual([]);
  });

  it('seals delete credentials as one opaque string', async () => {
    const sealed = await secrets.sealCredentials({ username: 'a', password: 'fail-teardown' });
    expect(sealed).not.toContain('fail-teardown');
    expect(await secrets.openCredentials(sealed)).toEqual({ username: 'a', password: 'fail-teardown' });
  });
});
