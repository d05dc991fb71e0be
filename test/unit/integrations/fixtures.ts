/**
 * Valid payloads per integration type, each with its own unique host identity so tests that
 * share one local cloud never collide on uniqueness claims.
 */
import { randomBytes } from 'node:crypto';

export const uid = () => randomBytes(5).toString('hex');

export function serviceAccount(project: string, privateKey = 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASC'): string {
  return JSON.stringify({
    type: 'service_account',
    project_id: project,
    client_email: `causeway@${project}.iam.example.com`,
    private_key: `-----BEGIN PRIVATE KEY-----\n${privateKey}\n-----END PRIVATE KEY-----\n`,
  });
}

// biome-ignore lint/suspicious/noExplicitAny: payload fixtures are mutated freely by tests
export type Payload = Record<string, any>;

export function payloads(id = uid()): Record<string, Payload> {
  return {
    ObjectStore: {
      type: 'ObjectStore',
      autoBootstrap: false,
      config: {
        name: `store-${id}`,
        cloudAccountId: '123456789012',
        cloudRegion: 'us-east-1',
        cloudLocationRole: 'arn:aws:iam::123456789012:role/grants',
        cloudLocationPath: `s3://bucket-${id}/data/`,
        authenticationType: 'accessKey',
        cloudAccessKeyId: `AKIA${id.toUpperCase()}`,
        cloudSecretAccessKey: `os-secret-${id}`,
      },
    },
    AnalyticsWarehouse: {
      type: 'AnalyticsWarehouse',
      autoBootstrap: true,
      config: {
        host: `aw-${id}.example.com`,
        database: 'analytics',
        schema: 'service_views',
        username: `aw-user-${id}`,
        password: `aw-pass-${id}`,
      },
    },
    Lakehouse: {
      type: 'Lakehouse',
      autoBootstrap: true,
      config: {
        workspaceUrl: `https://lh-${id}.cloud.example.com`,
        httpPath: '/sql/1.0/warehouses/abc',
        authenticationType: 'token',
        token: `lh-token-${id}`,
      },
    },
    DatasetWarehouse: {
      type: 'DatasetWarehouse',
      autoBootstrap: false,
      config: {
        role: 'roles/service',
        datasetSuffix: '_secure',
        location: 'US',
        credential: serviceAccount(`proj-${id}`, `dw-key-${id}`),
      },
    },
    ClusterWarehouse: {
      type: 'ClusterWarehouse',
      autoBootstrap: true,
      config: {
        host: `cl-${id}.example.com`,
        database: 'service_db',
        initialDatabase: 'dev',
        authenticationType: 'userPassword',
        username: `cl-user-${id}`,
        password: `cl-pass-${id}`,
      },
    },
    CloudWarehouse: {
      type: 'CloudWarehouse',
      autoBootstrap: true,
      config: {
        host: `cw-${id}.example.com`,
        warehouse: 'COMPUTE_WH',
        database: 'SERVICE_DB',
        role: 'ACCOUNTADMIN',
        authenticationType: 'userPassword',
        username: `cw-user-${id}`,
        password: `cw-pass-${id}`,
      },
    },
    FederatedSql: { type: 'FederatedSql' },
  };
}

/** Privileged delete credentials for the automatically bootstrapped types. */
export function deleteBodies(id = uid()): Record<string, Payload> {
  return {
    AnalyticsWarehouse: {
      authenticationType: 'userPassword',
      username: `adm-${id}`,
      password: `adm-pass-${id}`,
    },
    ClusterWarehouse: {
      authenticationType: 'userPassword',
      username: `adm-${id}`,
      password: `adm-pass-${id}`,
    },
    CloudWarehouse: {
      authenticationType: 'userPassword',
      username: `adm-${id}`,
      password: `adm-pass-${id}`,
      role: 'ACCOUNTADMIN',
    },
  };
}

/** Every secret value a payload carries (for redaction checks). */
export function secretValues(payload: Payload): string[] {
  const found: string[] = [];
  const visit = (value: unknown, key: string) => {
    if (typeof value === 'string') {
      if (
        /password|secret|token|privatekey|credential|accesskeyid|username/i.test(key) &&
        value !== '[REDACTED]'
      )
        found.push(value);
    } else if (value && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) visit(v, k);
    }
  };
  visit(payload, '');
  return found;
}
