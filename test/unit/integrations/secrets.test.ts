import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { LocalKeyProvider } from '../../../shared/crypto/envelope';
import { httpStatusOf } from '../../../shared/edge/errors';
import type * as Secrets from '../../../shared/integrations/secrets';
import { legacyCiphertext } from '../../support/legacy-ciphertext';
import { tempDir } from '../../support/temp';
import { payloads } from './fixtures';

let secrets: typeof Secrets;
let masterKeyFile: string;
const provider = () => LocalKeyProvider.fromFile(masterKeyFile);

beforeAll(async () => {
  const dir = tempDir('causeway-secrets-');
  const file = join(dir, 'master.key');
  writeFileSync(file, randomBytes(32).toString('base64'));
  process.env.LOCAL_MASTER_KEY_FILE = file;
  masterKeyFile = file;
  secrets = await import('../../../shared/integrations/secrets');
});

describe('integration secrets', () => {
  const config = () => structuredClone(payloads('s').ClusterWarehouse?.config) as Record<string, unknown>;
  const stored = (owner = secrets.integrationOwner(1), plain = config()) =>
    secrets.secretsOf({ type: 'ClusterWarehouse', config: plain }).seal(owner) as Promise<
      Record<string, unknown>
    >;
  const statusOf = async (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error) => ({ status: httpStatusOf(error), message: (error as Error).message }),
    );

  it('encrypts exactly the secret fields and decrypts them back for the same owner', async () => {
    const plain = config();
    const sealed = await stored(secrets.integrationOwner(1), plain);
    expect(String(sealed.password)).toMatch(/^enc:v2:/);
    expect(String(sealed.username)).toMatch(/^enc:v2:/);
    expect(sealed.host).toBe(plain.host);
    expect(JSON.stringify(sealed)).not.toContain(String(plain.password));
    expect(
      await secrets.secretsOf({ type: 'ClusterWarehouse', config: sealed }).open(secrets.integrationOwner(1)),
    ).toEqual(plain);
  });

  it('seals a caller value that looks like ciphertext as the string it is, and never opens it', async () => {
    const first = await stored();
    const replayed = { ...config(), password: first.password };
    const again = await stored(secrets.integrationOwner(2), replayed);
    expect(again.password).not.toBe(first.password);
    const opened = await secrets
      .secretsOf({ type: 'ClusterWarehouse', config: again })
      .open(secrets.integrationOwner(2));
    expect(opened?.password).toBe(first.password);
    expect(secrets.secretsOf({ type: 'ClusterWarehouse', config: replayed }).plaintext()).toContain(
      first.password,
    );
  });

  it('binds each value to its owner, field and connection: a moved ciphertext does not open (409)', async () => {
    const owner = secrets.integrationOwner(3);
    const sealed = await stored(owner);
    const decrypt = (c: Record<string, unknown>, o = owner) =>
      secrets.secretsOf({ type: 'ClusterWarehouse', config: c }).open(o);
    const another = await statusOf(decrypt(sealed, secrets.integrationOwner(4)));
    expect(another).toEqual({
      status: 409,
      message: expect.stringContaining('config.username of integration 4'),
    });
    expect(await statusOf(decrypt(sealed, secrets.requestOwner()))).toMatchObject({ status: 409 });
    const swapped = { ...sealed, username: sealed.password, password: sealed.username };
    expect(await statusOf(decrypt(swapped))).toMatchObject({ status: 409 });
    for (const moved of [{ port: 1 }, { host: 'elsewhere.example.net' }, { connectArgs: 'sslmode=disable' }])
      expect(await statusOf(decrypt({ ...sealed, ...moved })), JSON.stringify(moved)).toMatchObject({
        status: 409,
        message: expect.stringContaining('send every secret again'),
      });
    // Settings are not part of the binding.
    expect((await decrypt({ ...sealed, database: 'other' }))?.password).toBe(config().password);
  });

  it('a malformed or unsealed stored value is a clear 409, never the value', async () => {
    const sealed = await stored();
    for (const bad of [
      'enc:v2:%%%:%%%',
      'enc:v2:',
      'enc:v2:AAAA:AAAA',
      'plain-text-value',
      'enc:v1:AAAA:BBBB',
    ])
      expect(
        await statusOf(
          secrets
            .secretsOf({ type: 'ClusterWarehouse', config: { ...sealed, password: bad } })
            .open(secrets.integrationOwner(1)),
        ),
        bad,
      ).toEqual({ status: 409, message: expect.not.stringContaining(bad.slice(7) || bad) });
  });

  it('still opens a value sealed before bindings (enc:v1 under the old purpose), and only that purpose', async () => {
    const v1 = await legacyCiphertext(provider(), secrets.LEGACY_CONFIG_PURPOSE, 'old-password');
    const sealed = { ...(await stored()), password: v1 };
    const opened = await secrets
      .secretsOf({ type: 'ClusterWarehouse', config: sealed })
      .open(secrets.integrationOwner(1));
    expect(opened?.password).toBe('old-password');
    const otherPurpose = { ...sealed, password: await legacyCiphertext(provider(), 'webhook-secret', 'x') };
    expect(
      await statusOf(
        secrets
          .secretsOf({ type: 'ClusterWarehouse', config: otherPurpose })
          .open(secrets.integrationOwner(1)),
      ),
    ).toMatchObject({ status: 409 });
  });

  it('reads stored secrets strictly, or skipping those that do not open (for scrubbing)', async () => {
    const sealed = { ...(await stored()), password: 'enc:v2:AAAA:AAAA' };
    expect(
      await statusOf(
        secrets.secretsOf({ type: 'ClusterWarehouse', config: sealed }).openAll(secrets.integrationOwner(1)),
      ),
    ).toMatchObject({
      status: 409,
    });
    expect(
      await secrets
        .secretsOf({ type: 'ClusterWarehouse', config: sealed })
        .openAll(secrets.integrationOwner(1), {
          skipUnreadable: true,
        }),
    ).toEqual([config().username]);
  });

  it('redacts secrets, nested ones included', async () => {
    const lake = {
      workspaceUrl: 'https://x.example.com',
      authenticationType: 'oAuthM2M',
      oAuthClientConfig: { clientId: 'c', authorityUrl: 'https://x.example.com/t', clientSecret: 'shh' },
    };
    const redacted = (await secrets.secretsOf({ type: 'Lakehouse', config: lake }).redact()) as typeof lake;
    expect(redacted.oAuthClientConfig.clientSecret).toBe('[REDACTED]');
    expect(redacted.oAuthClientConfig.clientId).toBe('c');
  });

  it('restores placeholders from the stored config, leaves new values alone and says which it restored', async () => {
    const owner = secrets.integrationOwner(5);
    const incoming = { ...config(), username: '[REDACTED]', password: 'new-password' };
    const { config: restored, restored: paths } = await secrets
      .secretsOf({ type: 'ClusterWarehouse', config: await stored(owner) })
      .restore(incoming, owner);
    expect(restored?.username).toBe(config().username);
    expect(restored?.password).toBe('new-password');
    expect(paths).toEqual(['username']);
    const nothingStored = await secrets
      .secretsOf({ type: 'ClusterWarehouse', config: undefined })
      .restore(incoming, owner);
    expect(nothingStored.config?.username).toBe('[REDACTED]');
    expect(nothingStored.restored).toEqual([]);
    // Another integration's stored config does not open for this one.
    expect(
      await statusOf(
        secrets.secretsOf({ type: 'ClusterWarehouse', config: await stored() }).restore(incoming, owner),
      ),
    ).toMatchObject({ status: 409 });
  });

  it('seals delete credentials for one integration and connection, under their own purpose', async () => {
    const record = {
      id: 6,
      type: 'ClusterWarehouse' as const,
      config: await stored(secrets.integrationOwner(6)),
    };
    const credentials = { username: 'a', password: 'fail-teardown' };
    const sealed = await secrets.secretsOf(record).sealCredentials(credentials, record.id);
    expect(sealed).not.toContain('fail-teardown');
    expect(await secrets.secretsOf(record).openCredentials(sealed, record.id)).toEqual(credentials);
    expect(await statusOf(secrets.secretsOf(record).openCredentials(sealed, 7))).toMatchObject({
      status: 409,
    });
    expect(
      await statusOf(
        secrets
          .secretsOf({ ...record, config: { ...record.config, port: 1 } })
          .openCredentials(sealed, record.id),
      ),
    ).toMatchObject({ status: 409 });
    // Not a config secret, and a config secret is not delete credentials.
    const asConfig = { ...record.config, password: sealed };
    expect(
      await statusOf(
        secrets.secretsOf({ type: 'ClusterWarehouse', config: asConfig }).open(secrets.integrationOwner(6)),
      ),
    ).toMatchObject({
      status: 409,
    });
    expect(
      await statusOf(secrets.secretsOf(record).openCredentials(String(record.config.password), record.id)),
    ).toMatchObject({
      status: 409,
    });
  });
});

describe('scrubbing secrets from messages (whole values, never fragments of other names)', () => {
  const scrub = (text: string, values: string[]) => secrets.scrubSecrets(text, values);

  it('leaves another name that merely contains a short value whole', () => {
    expect(scrub('missing schema svcdb.svc_views for user svc', ['svc'])).toBe(
      'missing schema svcdb.svc_views for user [REDACTED]',
    );
    expect(scrub('role "svc" and svc-admin', ['svc'])).toBe('role "[REDACTED]" and [REDACTED]-admin');
  });

  it('scrubs a long value wherever it stands, taking the whole word it is glued into', () => {
    const password = 'Tr0ub4dor&3x';
    expect(scrub(`login failed: pw=${password}; echo XX${password}YY and ${password}`, [password])).toBe(
      'login failed: pw=[REDACTED]; echo [REDACTED] and [REDACTED]',
    );
    expect(scrub('token abcdefgh1234zz', ['abcdefgh1234'])).toBe('token [REDACTED]');
  });

  it('scrubs short values as whole words from 3 characters, and the longest value first', () => {
    expect(scrub('user bob on host bob.example, not bobby', ['bob'])).toBe(
      'user [REDACTED] on host [REDACTED].example, not bobby',
    );
    expect(scrub('a user in the group', ['a', 'in'])).toBe('a user in the group');
    expect(scrub('secret-value and secret', ['secret', 'secret-value'])).toBe('[REDACTED] and [REDACTED]');
  });

  it('treats the value as text, not as a pattern, and is never fooled into revealing it', () => {
    expect(scrub('a.b*c+ and a.b*c+d', ['a.b*c+'])).toBe('[REDACTED] and [REDACTED]d');
    for (const value of ['p@ss w0rd!', '((x', 'ünïcødé-pw', '\\u0041']) {
      expect(scrub(`said ${value} twice: ${value}`, [value])).not.toContain(value);
    }
  });
});
