/** Representative validated payloads per SQL type, with every optional feature off and on. */
import { generateKeyPairSync } from 'node:crypto';
import { IntegrationPayloadSchema } from '../../../shared/platforms';
import type { SqlPayload } from '../../../shared/platforms/scripts';

/** Parses a payload; config keys set to `undefined` are dropped (so variants can remove defaults). */
export function payload(input: {
  type: string;
  autoBootstrap: boolean;
  config: Record<string, unknown>;
}): SqlPayload {
  const config = Object.fromEntries(Object.entries(input.config).filter(([, v]) => v !== undefined));
  return IntegrationPayloadSchema.parse({ ...input, config }) as SqlPayload;
}

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
/** As the spec writes it: new lines replaced by a backslash and the letter n. */
export const PRIVATE_KEY = (privateKey.export({ type: 'pkcs8', format: 'pem' }) as string).replaceAll(
  '\n',
  '\\n',
);

export const cluster = (autoBootstrap: boolean, extra: Record<string, unknown> = {}) =>
  payload({
    type: 'ClusterWarehouse',
    autoBootstrap,
    config: {
      host: 'cluster.example.com',
      database: 'service_db',
      ...(autoBootstrap ? { initialDatabase: 'dev' } : {}),
      authenticationType: 'userPassword',
      username: 'service_system_user',
      password: 'S3cret-pass',
      ...extra,
    },
  });

export const cloud = (autoBootstrap: boolean, extra: Record<string, unknown> = {}) =>
  payload({
    type: 'CloudWarehouse',
    autoBootstrap,
    config: {
      host: 'acme.snowflakecomputing.com',
      warehouse: 'compute_wh',
      database: 'service_db',
      authenticationType: 'userPassword',
      username: 'service_user',
      password: 'S3cret-pass',
      ...(autoBootstrap ? { role: 'ACCOUNTADMIN' } : {}),
      ...extra,
    },
  });

export const analytics = (autoBootstrap: boolean, extra: Record<string, unknown> = {}) =>
  payload({
    type: 'AnalyticsWarehouse',
    autoBootstrap,
    config: {
      host: 'sql.example.net',
      database: 'sales',
      schema: 'service_views',
      username: 'service_user',
      password: 'S3cret-pass',
      ...extra,
    },
  });

const lakehouseBase = {
  workspaceUrl: 'https://dbc-1234.cloud.example.com',
  httpPath: '/sql/1.0/warehouses/abc',
};

export const lakehouse = (autoBootstrap: boolean, extra: Record<string, unknown> = {}) =>
  payload({
    type: 'Lakehouse',
    autoBootstrap,
    config: { ...lakehouseBase, authenticationType: 'token', token: 'dapi-token', ...extra },
  });

export const lakehouseOAuth = (autoBootstrap: boolean, extra: Record<string, unknown> = {}) =>
  payload({
    type: 'Lakehouse',
    autoBootstrap,
    config: {
      ...lakehouseBase,
      authenticationType: 'oAuthM2M',
      oAuthClientConfig: {
        clientId: '7f1c-service-principal',
        authorityUrl: 'https://dbc-1234.cloud.example.com/oidc/v1/token',
        clientSecret: 'oauth-secret',
      },
      ...extra,
    },
  });
