/**
 * The payload schemas of every type: defaults, required fields, unknown fields, secrets.
 * Over 400 lines: one table of cases per type, kept together so the types can be compared.
 */
import { describe, expect, it } from 'vitest';
import { INTEGRATION_TYPES } from '../../../shared/platforms';
import { IntegrationPayloadSchema } from '../../../shared/platforms/payload-schema';
import { fixtureSuite, schemaSuite } from '../../support/platform-suites';
import { type Payload, payloads, serviceAccount } from './fixtures';

function parse(payload: Payload) {
  return IntegrationPayloadSchema.safeParse(payload);
}

function withConfig(type: string, change: (config: Payload) => void, top: Partial<Payload> = {}): Payload {
  const p = structuredClone(payloads('t')[type]) as Payload;
  change(p.config);
  return { ...p, ...top };
}

function issuePaths(payload: Payload): string[] {
  const r = parse(payload);
  return r.success ? [] : r.error.issues.map((i) => i.path.join('.'));
}

// Every registered type's example is valid, parsed as the API parses a body of its type, and its
// schema refuses unknown fields (test/support/platform-suites.ts).
fixtureSuite();
schemaSuite();

describe('defaults', () => {
  const cases: [string, string, unknown][] = [
    ['ObjectStore', 'port', 443],
    ['AnalyticsWarehouse', 'port', 1433],
    [
      'AnalyticsWarehouse',
      'metadataDelimiters',
      { hashDelimiter: '|', hashKeyDelimiter: ':', arrayDelimiter: ',' },
    ],
    ['AnalyticsWarehouse', 'impersonation', { enabled: false, role: 'SERVICE_IMPERSONATION' }],
    ['Lakehouse', 'port', 443],
    ['Lakehouse', 'audit', { enabled: false }],
    ['Lakehouse', 'catalog', 'service'],
    ['Lakehouse', 'groupPattern', { deny: 'service_exemption_group' }],
    ['DatasetWarehouse', 'port', 443],
    ['DatasetWarehouse', 'dataset', 'service'],
    ['ClusterWarehouse', 'port', 5439],
    ['ClusterWarehouse', 'impersonation', { enabled: false, role: 'service_impersonation' }],
    ['CloudWarehouse', 'port', 443],
    ['CloudWarehouse', 'audit', { enabled: false }],
    ['CloudWarehouse', 'impersonation', { enabled: false, role: 'SERVICE_IMPERSONATION' }],
    ['CloudWarehouse', 'userRolePattern', { exclude: [] }],
    ['CloudWarehouse', 'workspaces', { enabled: false, warehouses: [] }],
    ['CloudWarehouse', 'lineage', { enabled: false }],
  ];
  it.each(cases)('%s config.%s defaults', (type, field, expected) => {
    const r = parse(payloads()[type] as Payload);
    expect(r.success).toBe(true);
    if (r.success && 'config' in r.data) expect((r.data.config as Payload)[field]).toEqual(expected);
  });

  it('lineageConfig fills its own defaults when lineage is enabled', () => {
    const r = parse(withConfig('CloudWarehouse', (c) => (c.lineage = { enabled: true, lineageConfig: {} })));
    expect(r.success).toBe(true);
    if (r.success && r.data.type === 'CloudWarehouse') {
      expect(r.data.config.lineage.lineageConfig).toEqual({
        tableFilter: '^.*$',
        tagFilterRegex: '^.*$',
        ingestBatchSize: 1000,
      });
    }
  });

  it('CloudWarehouse oAuth useCertificate defaults to true', () => {
    const r = parse(
      withConfig(
        'CloudWarehouse',
        (c) => {
          delete c.username;
          delete c.password;
          delete c.role;
          c.authenticationType = 'oAuth';
          c.oAuthClientConfig = {
            provider: 'idp',
            clientId: 'c',
            authorityUrl: 'https://idp.example.com/token',
            publicCertificateThumbprint: 'ab',
            oauthPrivateKey: 'key',
          };
        },
        { autoBootstrap: false },
      ),
    );
    expect(r.success).toBe(true);
    if (r.success && r.data.type === 'CloudWarehouse' && r.data.config.authenticationType === 'oAuth') {
      expect(r.data.config.oAuthClientConfig.useCertificate).toBe(true);
    }
  });
});

describe('bounds', () => {
  const ports: [string, unknown, boolean][] = [
    ['AnalyticsWarehouse', 0, true],
    ['AnalyticsWarehouse', 65535, true],
    ['AnalyticsWarehouse', 65536, false],
    ['AnalyticsWarehouse', -1, false],
    ['ClusterWarehouse', 1.5, false],
    ['ObjectStore', '443', false],
    ['Lakehouse', 65536, false],
    ['DatasetWarehouse', 70000, false],
    ['CloudWarehouse', 8443, true],
  ];
  it.each(ports)('%s port %s valid=%s', (type, port, ok) => {
    expect(parse(withConfig(type, (c) => (c.port = port))).success).toBe(ok);
  });

  const values: [string, string, string, unknown, boolean][] = [
    ['Lakehouse catalog with letters, digits, underscores', 'Lakehouse', 'catalog', 'svc_2', true],
    ['Lakehouse catalog starting with a digit', 'Lakehouse', 'catalog', '2svc', false],
    ['Lakehouse catalog with a dash', 'Lakehouse', 'catalog', 'svc-x', false],
    ['datasetSuffix starting with _', 'DatasetWarehouse', 'datasetSuffix', '_views', true],
    ['datasetSuffix without _', 'DatasetWarehouse', 'datasetSuffix', 'views', false],
    ['host with a scheme', 'AnalyticsWarehouse', 'host', 'https://x.example.com', false],
    ['host with a path', 'ClusterWarehouse', 'host', 'x.example.com/db', false],
    ['workspaceUrl over http', 'Lakehouse', 'workspaceUrl', 'http://x.example.com', false],
    ['credential that is not a key file', 'DatasetWarehouse', 'credential', '{"type":"user"}', false],
    ['empty password', 'AnalyticsWarehouse', 'password', '', false],
    ['cloud account id of 11 digits', 'ObjectStore', 'cloudAccountId', '12345678901', false],
  ];
  it.each(values)('%s', (_name, type, field, value, ok) => {
    expect(parse(withConfig(type, (c) => (c[field] = value))).success).toBe(ok);
  });

  it('ingestBatchSize has a minimum of 1', () => {
    const lineage = (n: number) => ({ enabled: true, lineageConfig: { ingestBatchSize: n } });
    expect(parse(withConfig('CloudWarehouse', (c) => (c.lineage = lineage(0)))).success).toBe(false);
    expect(parse(withConfig('CloudWarehouse', (c) => (c.lineage = lineage(1)))).success).toBe(true);
  });

  it('regex filters must compile', () => {
    const lineage = { enabled: true, lineageConfig: { tableFilter: '([' } };
    expect(parse(withConfig('CloudWarehouse', (c) => (c.lineage = lineage))).success).toBe(false);
  });

  it('unknown fields are rejected at the top level and inside config', () => {
    expect(issuePaths({ ...payloads().AnalyticsWarehouse, extra: 1 })).toContain('');
    expect(parse(withConfig('AnalyticsWarehouse', (c) => (c.surprise = true))).success).toBe(false);
    expect(parse({ type: 'FederatedSql', autoBootstrap: false }).success).toBe(false);
    expect(parse({ type: 'FederatedSql', config: {} }).success).toBe(false);
  });
});

describe('required-if rules', () => {
  const cases: [string, Payload, boolean, string?][] = [
    [
      'ObjectStore accessKey needs cloudAccessKeyId',
      withConfig('ObjectStore', (c) => delete c.cloudAccessKeyId),
      false,
    ],
    [
      'ObjectStore accessKey needs cloudSecretAccessKey',
      withConfig('ObjectStore', (c) => delete c.cloudSecretAccessKey),
      false,
    ],
    [
      'ObjectStore auto takes no keys',
      withConfig('ObjectStore', (c) => {
        c.authenticationType = 'auto';
      }),
      false,
    ],
    [
      'ObjectStore auto without keys',
      withConfig('ObjectStore', (c) => {
        c.authenticationType = 'auto';
        delete c.cloudAccessKeyId;
        delete c.cloudSecretAccessKey;
      }),
      true,
    ],
    [
      'ObjectStore autoBootstrap true',
      { ...payloads().ObjectStore, autoBootstrap: true },
      false,
      'autoBootstrap',
    ],
    [
      'DatasetWarehouse autoBootstrap true',
      { ...payloads().DatasetWarehouse, autoBootstrap: true },
      false,
      'autoBootstrap',
    ],
    [
      'autoBootstrap is required',
      (() => {
        const p = payloads().AnalyticsWarehouse as Payload;
        delete p.autoBootstrap;
        return p;
      })(),
      false,
      'autoBootstrap',
    ],
    ['config is required', { type: 'Lakehouse', autoBootstrap: false }, false, 'config'],
    ['Lakehouse token needs token', withConfig('Lakehouse', (c) => delete c.token), false],
    [
      'Lakehouse oAuthM2M needs oAuthClientConfig',
      withConfig('Lakehouse', (c) => {
        delete c.token;
        c.authenticationType = 'oAuthM2M';
      }),
      false,
    ],
    [
      'Lakehouse oAuthM2M with client config',
      withConfig('Lakehouse', (c) => {
        delete c.token;
        c.authenticationType = 'oAuthM2M';
        c.oAuthClientConfig = {
          clientId: 'id',
          authorityUrl: 'https://x.example.com/oidc/v1/token',
          clientSecret: 's',
        };
      }),
      true,
    ],
    [
      'Lakehouse oAuth clientSecret required',
      withConfig('Lakehouse', (c) => {
        delete c.token;
        c.authenticationType = 'oAuthM2M';
        c.oAuthClientConfig = { clientId: 'id', authorityUrl: 'https://x.example.com/oidc/v1/token' };
      }),
      false,
    ],
    [
      'ClusterWarehouse initialDatabase required with autoBootstrap',
      withConfig('ClusterWarehouse', (c) => delete c.initialDatabase),
      false,
      'config.initialDatabase',
    ],
    [
      'ClusterWarehouse initialDatabase optional without autoBootstrap',
      withConfig('ClusterWarehouse', (c) => delete c.initialDatabase, { autoBootstrap: false }),
      true,
    ],
    [
      'ClusterWarehouse accessKey needs databaseUser, accessKeyId, secretKey',
      withConfig('ClusterWarehouse', (c) => {
        delete c.username;
        delete c.password;
        c.authenticationType = 'accessKey';
        c.accessKeyId = 'AKIA';
        c.secretKey = 's';
      }),
      false,
    ],
    [
      'ClusterWarehouse accessKey complete (sessionToken optional)',
      withConfig('ClusterWarehouse', (c) => {
        delete c.username;
        delete c.password;
        c.authenticationType = 'accessKey';
        c.databaseUser = 'u';
        c.accessKeyId = 'AKIA';
        c.secretKey = 's';
      }),
      true,
    ],
    [
      'ClusterWarehouse idp needs every idp field',
      withConfig('ClusterWarehouse', (c) => {
        delete c.username;
        delete c.password;
        c.authenticationType = 'idp';
        c.idp = { username: 'u', password: 'p', appId: 'a', idpHost: 'idp.example.com' };
      }),
      false,
    ],
    [
      'ClusterWarehouse userPassword needs password',
      withConfig('ClusterWarehouse', (c) => delete c.password),
      false,
    ],
    [
      'CloudWarehouse role required with autoBootstrap',
      withConfig('CloudWarehouse', (c) => delete c.role),
      false,
      'config.role',
    ],
    [
      'CloudWarehouse role optional without autoBootstrap',
      withConfig('CloudWarehouse', (c) => delete c.role, { autoBootstrap: false }),
      true,
    ],
    [
      'CloudWarehouse keyPair needs privateKey',
      withConfig('CloudWarehouse', (c) => {
        delete c.password;
        c.authenticationType = 'keyPair';
      }),
      false,
    ],
    [
      'CloudWarehouse oAuth forbids autoBootstrap',
      withConfig('CloudWarehouse', (c) => {
        delete c.username;
        delete c.password;
        c.authenticationType = 'oAuth';
        c.oAuthClientConfig = {
          provider: 'p',
          clientId: 'c',
          authorityUrl: 'https://idp.example.com/t',
          useCertificate: false,
          clientSecret: 's',
        };
      }),
      false,
      'autoBootstrap',
    ],
    [
      'CloudWarehouse oAuth certificate fields required with useCertificate',
      withConfig(
        'CloudWarehouse',
        (c) => {
          delete c.username;
          delete c.password;
          c.authenticationType = 'oAuth';
          c.oAuthClientConfig = { provider: 'p', clientId: 'c', authorityUrl: 'https://idp.example.com/t' };
        },
        { autoBootstrap: false },
      ),
      false,
      'config.oAuthClientConfig.publicCertificateThumbprint',
    ],
    [
      'CloudWarehouse oAuth clientSecret required without certificate',
      withConfig(
        'CloudWarehouse',
        (c) => {
          delete c.username;
          delete c.password;
          c.authenticationType = 'oAuth';
          c.oAuthClientConfig = {
            provider: 'p',
            clientId: 'c',
            authorityUrl: 'https://idp.example.com/t',
            useCertificate: false,
          };
        },
        { autoBootstrap: false },
      ),
      false,
      'config.oAuthClientConfig.clientSecret',
    ],
    [
      'CloudWarehouse lineageConfig required when lineage enabled',
      withConfig('CloudWarehouse', (c) => (c.lineage = { enabled: true })),
      false,
      'config.lineage.lineageConfig',
    ],
    [
      'CloudWarehouse privilegedConnectArgs only with autoBootstrap',
      withConfig('CloudWarehouse', (c) => (c.privilegedConnectArgs = 'a=b'), { autoBootstrap: false }),
      false,
      'config.privilegedConnectArgs',
    ],
    [
      'DatasetWarehouse credential must be a service-account key',
      withConfig(
        'DatasetWarehouse',
        (c) => (c.credential = serviceAccount('p').replace('service_account', 'user')),
      ),
      false,
    ],
  ];
  it.each(cases)('%s', (_name, payload, ok, path) => {
    const r = parse(payload);
    expect(r.success).toBe(ok);
    if (path) expect(issuePaths(payload)).toContain(path);
  });
});

describe('error messages that say what to fix (issue 14 §2)', () => {
  it('a missing or unknown type lists the accepted types', () => {
    for (const body of [
      { autoBootstrap: false, config: {} },
      { type: 'Nope', autoBootstrap: false, config: {} },
    ]) {
      const r = IntegrationPayloadSchema.safeParse(body);
      expect(r.success).toBe(false);
      const issue = r.error?.issues[0];
      expect(issue?.path).toEqual(['type']);
      // The list, in registry order (the types themselves are pinned in ../platforms/registry.test.ts).
      expect(issue?.message).toBe(`must be one of ${INTEGRATION_TYPES.join(', ')}`);
    }
  });

  it('a ClusterWarehouse with several fields missing names all of them, initialDatabase included, at once', () => {
    const paths = issuePaths({
      type: 'ClusterWarehouse',
      autoBootstrap: true,
      config: { host: 'db.example.com', authenticationType: 'userPassword' },
    } as Payload);
    expect(paths).toEqual(
      expect.arrayContaining([
        'config.database',
        'config.username',
        'config.password',
        'config.initialDatabase',
      ]),
    );
  });
});
